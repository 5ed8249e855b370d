import Foundation
import GRDB

/// Column names are the snake_case of the property names.
public protocol SnakeCaseRecord: Codable, FetchableRecord, MutablePersistableRecord {}
extension SnakeCaseRecord {
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}

public struct LibraryRootRecord: SnakeCaseRecord, Sendable {
    public static let databaseTableName = "library_roots"
    public var id: Int64?
    public var path: String
    public var addedAt: Date
    public var lastScanAt: Date?

    public init(id: Int64? = nil, path: String, addedAt: Date = Date(), lastScanAt: Date? = nil) {
        self.id = id; self.path = path; self.addedAt = addedAt; self.lastScanAt = lastScanAt
    }
}

public struct FileRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "files"
    public enum Status: String, Codable, Sendable { case present, missing }
    public var id: Int64?
    public var rootId: Int64
    public var path: String
    public var name: String
    public var size: Int64
    public var mtimeNs: Int64
    public var inode: Int64?
    public var contentKey: String?
    public var status: Status
    public var firstSeenAt: Date
    public var changedAt: Date
    public var missingSince: Date?

    public init(id: Int64? = nil, rootId: Int64, path: String, size: Int64, mtimeNs: Int64, inode: Int64?,
                contentKey: String?, status: Status = .present, firstSeenAt: Date = Date(), changedAt: Date = Date(),
                missingSince: Date? = nil) {
        self.id = id; self.rootId = rootId; self.path = path
        self.name = (path as NSString).lastPathComponent.lowercased()
        self.size = size; self.mtimeNs = mtimeNs; self.inode = inode; self.contentKey = contentKey
        self.status = status; self.firstSeenAt = firstSeenAt; self.changedAt = changedAt; self.missingSince = missingSince
    }
}

public struct TrackRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "tracks"
    public var fileId: Int64
    public var contentKey: String?
    public var title: String?
    public var artist: String?
    public var albumArtist: String?
    public var album: String?
    /// JSON array of genre names.
    public var genres: String?
    public var date: String?
    public var year: Int?
    public var trackNumber: Int?
    public var trackTotal: Int?
    public var discNumber: Int?
    public var discTotal: Int?
    public var language: String?
    public var releaseCountry: String?
    public var bpm: Double?
    public var replaygainTrackGain: String?
    public var replaygainTrackPeak: String?
    public var replaygainAlbumGain: String?
    public var replaygainAlbumPeak: String?
    public var musicbrainzTrackId: String?
    public var musicbrainzAlbumId: String?
    public var musicbrainzArtistId: String?
    public var musicbrainzAlbumArtistId: String?
    public var musicbrainzReleaseGroupId: String?
    public var durationS: Double?
    public var codec: String?
    public var sampleRate: Int?
    public var channels: Int?
    public var bitDepth: Int?
    public var bitrateKbps: Int?
    /// Every tag property as a JSON object of string arrays.
    public var properties: String?
    public var readAt: Date
    /// Why the tags could not be read (the other fields are then empty).
    public var error: String?
    public var crashes: Int = 0

    public init(fileId: Int64, readAt: Date = Date()) {
        self.fileId = fileId
        self.readAt = readAt
    }

    public var genreList: [String] {
        guard let genres, let data = genres.data(using: .utf8),
              let list = try? JSONDecoder().decode([String].self, from: data) else { return [] }
        return list
    }
}

public struct AnalysisRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "analysis"
    public var fileId: Int64
    public var contentKey: String?
    public var analyzerVersion: Int
    public var analyzedAt: Date
    public var status: String
    public var error: String?
    public var damage: String?
    public var codec: String?
    public var durationS: Double?
    public var sampleRate: Int?
    public var channels: Int?
    public var bpm: Double?
    public var bpmConfidence: Double?
    public var firstBeatS: Double?
    public var lufsIntegrated: Double?
    public var loudnessRangeLu: Double?
    public var truePeakDbtp: Double?
    public var samplePeakDbfs: Double?
    public var replaygainTrackGainDb: Double?
    public var leadSilenceEndS: Double?
    public var trailSilenceStartS: Double?
    public var isSilent: Bool?
    public var framesFps: Double?
    public var framesBands: Int?
    public var framesCount: Int?
    public var seconds: Double?
    public var crashes: Int = 0
    public var spectrumLow: Double?
    public var spectrumMid: Double?
    public var spectrumHigh: Double?
    public var loudnessBlocks: Data?

    public init(fileId: Int64, contentKey: String?, analyzerVersion: Int, status: String, analyzedAt: Date = Date()) {
        self.fileId = fileId; self.contentKey = contentKey; self.analyzerVersion = analyzerVersion
        self.status = status; self.analyzedAt = analyzedAt
    }
}

public struct VisFramesRecord: SnakeCaseRecord, Sendable {
    public static let databaseTableName = "vis_frames"
    public var fileId: Int64
    public var fps: Double
    public var bands: Int
    public var count: Int
    public var data: Data

    public init(fileId: Int64, fps: Double, bands: Int, count: Int, data: Data) {
        self.fileId = fileId; self.fps = fps; self.bands = bands; self.count = count; self.data = data
    }
}

public struct RunRecord: SnakeCaseRecord, Sendable {
    public static let databaseTableName = "runs"
    public var id: Int64?
    public var kind: String
    public var status: String
    public var pid: Int?
    public var startedAt: Date
    public var finishedAt: Date?
    public var filesTotal: Int
    public var filesDone: Int
    public var filesFailed: Int
    public var filesSkipped: Int
    public var options: String?
    public var summary: String?

    public init(kind: String, pid: Int? = Int(getpid()), startedAt: Date = Date(), options: String? = nil) {
        self.kind = kind; self.status = "running"; self.pid = pid; self.startedAt = startedAt
        self.filesTotal = 0; self.filesDone = 0; self.filesFailed = 0; self.filesSkipped = 0; self.options = options
    }
}

public struct RunFileRecord: SnakeCaseRecord, Sendable {
    public static let databaseTableName = "run_files"
    public var runId: Int64
    public var fileId: Int64
    public var stage: String
    public var status: String
    public var error: String?
    public var attempts: Int
    public var updatedAt: Date

    public init(runId: Int64, fileId: Int64, stage: String, status: String, error: String? = nil, attempts: Int = 0,
                updatedAt: Date = Date()) {
        self.runId = runId; self.fileId = fileId; self.stage = stage; self.status = status; self.error = error
        self.attempts = attempts; self.updatedAt = updatedAt
    }
}

extension LibraryRootRecord {
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
extension FileRecord {
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
extension RunRecord {
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
