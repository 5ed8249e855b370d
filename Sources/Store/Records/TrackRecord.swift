import Foundation
import GRDB

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
    /// When a run last could not read the file (a read error, the file out of reach) though these tags are of
    /// its content: they stay, and the next run reads it again. Cleared by any read that stores a row.
    public var unreadAt: Date?

    public init(fileId: Int64, readAt: Date = Date()) {
        self.fileId = fileId
        self.readAt = readAt
    }

    public var genreList: [String] { Self.genreList(genres) }

    /// The names in a `genres` value (a JSON array).
    public static func genreList(_ genres: String?) -> [String] {
        guard let genres, let data = genres.data(using: .utf8),
              let list = try? JSONDecoder().decode([String].self, from: data) else { return [] }
        return list
    }
}
