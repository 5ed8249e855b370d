import Foundation
import GRDB

/// One analysed track as `spindle serve` hands it to players: its path and its `analysis` row. The
/// companion's names (`silence_start` = where trailing silence begins, `silence_end` = where leading
/// silence ends) are the `smart_dj_profiles` view's; the profile route gives them.
public struct TrackProfile: Sendable, Equatable, FetchableRecord {
    public var path: String
    public var analysis: AnalysisRecord
    /// Whether the analysis is of the file's present content (`ServeQueries.profile`).
    public var current: Bool
    /// The tagger's stored tag probabilities (float32 blob), when it ran.
    public var tagProbabilities: Data?

    public init(row: Row) throws {
        path = try row.at("path")
        analysis = try AnalysisRecord(row: row)
        current = try row.at("current_content")
        tagProbabilities = try row.at("tag_probabilities")
    }
}

/// What the players' read API asks of the database. Every query is a read.
public enum ServeQueries {
    /// The stored results of one present file, or nil when it has not been analysed. Results of the content
    /// a file had before the scan found it changed (another recording copied over it) are not `current`: they
    /// are not its, and a player crossfading on another recording's silences cuts the music.
    public static func profile(_ db: Database, rootId: Int64, path: String) throws -> TrackProfile? {
        try TrackProfile.fetchOne(db, sql: """
            SELECT f.path, a.*, \(AnalysisQueries.ofCurrentContent) AS current_content FROM files f JOIN analysis a ON a.file_id = f.id
            WHERE f.root_id = ? AND f.path = ? AND f.status = 'present'
            """, arguments: [rootId, path])
    }

    /// Where the stored visualiser frames of one present file are and their shape, when of its present content
    /// (as `profile`), without reading them.
    public struct StoredFrames: Sendable {
        public var fileId: Int64
        public var fps: Double
        public var bands: Int
        /// Of the stored frames, frame after frame.
        public var bytes: Int
    }

    public static func storedFrames(_ db: Database, rootId: Int64, path: String) throws -> StoredFrames? {
        // length() of a blob reads its size from the record header, not the blob.
        try Row.fetchOne(db, sql: """
            SELECT v.file_id, v.fps, v.bands, length(v.data) AS bytes FROM vis_frames v JOIN files f ON f.id = v.file_id
            JOIN analysis a ON a.file_id = f.id AND \(AnalysisQueries.ofCurrentContent)
            WHERE f.root_id = ? AND f.path = ? AND f.status = 'present'
            """, arguments: [rootId, path]).map { row in
            try StoredFrames(fileId: row.at("file_id"), fps: row.at("fps"), bands: row.at("bands"), bytes: row.at("bytes"))
        }
    }

    /// `count` bytes of the stored frames `stored` from `offset`; nil when they are no longer those frames: the
    /// file was forgotten, or analysed again with another rate, band count or length since `storedFrames` (a
    /// response whose head gave the old shape would otherwise go on with bytes of the new frames).
    public static func framesPiece(_ db: Database, of stored: StoredFrames, offset: Int, count: Int) throws -> [UInt8]? {
        guard let shape = try Row.fetchOne(db, sql: "SELECT fps, bands, length(data) FROM vis_frames WHERE file_id = ?",
                                           arguments: [stored.fileId]),
              try shape.at(0) as Double == stored.fps, try shape.at(1) as Int == stored.bands, try shape.at(2) as Int == stored.bytes,
              let blob = try? FramesBlob(db, fileId: stored.fileId, writable: false), offset >= 0, offset + count <= blob.size else {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { try blob.read(into: $0, at: offset) }
        return bytes
    }

    /// The figures `/health` and `/metrics` report.
    public struct Figures: Sendable {
        /// Rows of `smart_dj_profiles`: present files analysed without error.
        public var profiles = 0
        public var frameSets = 0
        /// Present files whose latest analysis failed.
        public var failures = 0
        /// The newest run, whatever its state (a nightly run may be under way).
        public var lastRun: RunRecord?
        /// The newest run that has ended.
        public var lastFinishedRun: RunRecord?
    }

    public static func figures(_ db: Database) throws -> Figures {
        var figures = Figures()
        figures.profiles = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM smart_dj_profiles") ?? 0
        figures.frameSets = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM vis_frames v JOIN files f ON f.id = v.file_id WHERE f.status = 'present'
            """) ?? 0
        figures.failures = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM analysis a JOIN files f ON f.id = a.file_id
            WHERE a.status = 'error' AND f.status = 'present'
            """) ?? 0
        figures.lastRun = try RunQueries.latest(db, limit: 1).first
        figures.lastFinishedRun = try RunRecord.filter(Column("finished_at") != nil).order(Column("id").desc).fetchOne(db)
        return figures
    }

    /// Changes whenever a run ends: what the server's in-memory sonic space is checked against.
    public static func generation(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM runs WHERE finished_at IS NOT NULL") ?? 0
    }
}
