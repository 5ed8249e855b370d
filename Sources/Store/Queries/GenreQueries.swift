import Foundation
import GRDB

/// Composite genres: what building them reads, replacing them, and what a report reads back.
public enum GenreQueries {
    /// One present file of a root with its tags and the analysis results genre building uses.
    public struct Input: Sendable {
        public var fileId: Int64
        public var path: String
        /// Nil when the file's tags were never read.
        public var track: Tags?
        public var bpm, lufs, loudnessRange: Double?
        public var bpmConfidence, bpmAlternative: Double?
        public var key: String?
        /// The feature vector's stored bytes and the version of the features analyzer that wrote them.
        public var features: Data?
        public var featuresVersion: Int?
        /// The decoded length, when the file was analysed: exact where the tag reader's can be an estimate
        /// (TagLib reads a VBR MP3 without a Xing header from its first frame's bitrate).
        public var decodedDuration: Double?
        /// Seconds from the end of leading silence to the start of trailing silence, when analysed.
        public var soundingDuration: Double?
        /// The tagger's stored tag probabilities and embedding, and the version of the tagger that wrote them.
        public var tagProbabilities: Data?
        public var embedding: Data?
        public var taggerVersion: Int?
    }

    /// The tags genre building reads, of the `tracks` row: selected with the rest, as decoding whole
    /// `TrackRecord`s (35 columns through Codable) took two thirds of loading 100,000 tracks.
    public struct Tags: Sendable {
        public var title, artist, albumArtist, album: String?
        /// JSON array of genre names.
        public var genres: String?
        public var year: Int?
        public var language, releaseCountry: String?
        public var durationS: Double?

        public var genreList: [String] { TrackRecord.genreList(genres) }
    }

    public static func inputs(_ db: Database, rootId: Int64) throws -> [Input] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT f.id, f.path, a.bpm, a.lufs_integrated, a.loudness_range_lu, a.key, a.features,
                   json_extract(a.analyzer_versions, '$.features'), t.file_id AS has_track, a.duration_s,
                   a.bpm_confidence, a.bpm_alternative, a.trail_silence_start_s - a.lead_silence_end_s,
                   t.title, t.artist, t.album_artist, t.album, t.genres, t.year, t.language, t.release_country, t.duration_s,
                   a.tag_probabilities, a.embedding, json_extract(a.analyzer_versions, '$.tagger')
            FROM files f LEFT JOIN tracks t ON t.file_id = f.id
            LEFT JOIN analysis a ON a.file_id = f.id AND a.status = 'ok' AND \(AnalysisQueries.ofCurrentContent)
            WHERE f.root_id = ? AND f.status = 'present' ORDER BY f.path
            """, arguments: [rootId])
        return try rows.map {
            let tags = try ($0.at(8) as Int64?) == nil ? nil
                : Tags(title: $0.at(13), artist: $0.at(14), albumArtist: $0.at(15), album: $0.at(16), genres: $0.at(17),
                       year: $0.at(18), language: $0.at(19), releaseCountry: $0.at(20), durationS: $0.at(21))
            return try Input(fileId: $0.at(0), path: $0.at(1), track: tags, bpm: $0.at(2), lufs: $0.at(3),
                             loudnessRange: $0.at(4), bpmConfidence: $0.at(10), bpmAlternative: $0.at(11), key: $0.at(5),
                             features: $0.at(6), featuresVersion: $0.at(7), decodedDuration: $0.at(9), soundingDuration: $0.at(12),
                             tagProbabilities: $0.at(22), embedding: $0.at(23), taggerVersion: $0.at(24))
        }
    }

    /// What the analysis of one present file says about its feature vector: enough to tell a person why a
    /// track has none (not analysed, failed, silent, too short) rather than to "run analyze" once more.
    public struct VectorState: Sendable, Equatable {
        /// The features analyzer ran on the file's present content (its analysis may still have failed).
        public var analysed: Bool
        /// The analysis failed, with its error.
        public var failure: String?
        public var isSilent: Bool
        public var hasVector: Bool
        public var durationS: Double?
    }

    /// The vector state of the present file at `path`; nil when there is no such file.
    public static func vectorState(_ db: Database, rootId: Int64, path: String) throws -> VectorState? {
        try Row.fetchOne(db, sql: """
            SELECT a.file_id IS NOT NULL AND \(AnalysisQueries.ofCurrentContent)
                   AND (a.status != 'ok' OR json_extract(a.analyzer_versions, '$.features') IS NOT NULL),
                   CASE WHEN a.status != 'ok' THEN coalesce(a.error, 'no reason recorded') END,
                   coalesce(a.is_silent, 0), a.features IS NOT NULL, a.duration_s
            FROM files f LEFT JOIN analysis a ON a.file_id = f.id
            WHERE f.root_id = ? AND f.path = ? AND f.status = 'present'
            """, arguments: [rootId, path]).map {
            try VectorState(analysed: $0.at(0), failure: $0.at(1), isSilent: $0.at(2), hasVector: $0.at(3), durationS: $0.at(4))
        }
    }

    /// The dimension names of each version of the feature vector, by position.
    public static func featureDimensions(_ db: Database) throws -> [Int: [String]] {
        let rows = try Row.fetchAll(db, sql: "SELECT version, name FROM feature_dimensions ORDER BY version, position")
        return try Dictionary(grouping: rows, by: { try $0.at(0) as Int }).mapValues { try $0.map { try $0.at(1) as String } }
    }

    /// Replaces the composite genres and memberships of the library at `rootId` in one transaction; other
    /// libraries' genres stay. Genres of no library (built empty by an older Spindle) go too.
    public static func replace(_ db: Database, rootId: Int64, with genres: [(CompositeGenreRecord, [GenreMembershipRecord])]) throws -> Int {
        let replaced = CompositeGenreRecord.filter(Column("root_id") == rootId || Column("root_id") == nil)
        try GenreMembershipRecord.filter(replaced.select(Column("id")).contains(Column("genre_id"))).deleteAll(db)
        try replaced.deleteAll(db)
        var memberships = 0
        // One prepared statement for every membership: a record's insert encodes it through Codable each time,
        // an eighth of building the genres of 100,000 tracks.
        let insert = try db.makeStatement(sql: "INSERT INTO genre_memberships (genre_id, file_id, score, explanation) VALUES (?, ?, ?, ?)")
        for (genre, members) in genres {
            var genre = genre
            genre.rootId = rootId
            try genre.insert(db)
            for m in members {
                try insert.execute(arguments: [genre.id!, m.fileId, m.score, m.explanation])
                memberships += 1
            }
        }
        return memberships
    }

    /// The stored genres of the library at `rootId` (of every library when nil), largest first, each with its
    /// members' paths (relative to their root).
    public static func stored(_ db: Database, rootId: Int64?) throws -> [(CompositeGenreRecord, [(path: String, score: Double, explanation: String)])] {
        let all = CompositeGenreRecord.order(Column("size").desc, Column("name"))
        let genres = try (rootId.map { all.filter(Column("root_id") == $0) } ?? all).fetchAll(db)
        return try genres.map { genre in
            let members = try Row.fetchAll(db, sql: """
                SELECT f.path, m.score, m.explanation FROM genre_memberships m JOIN files f ON f.id = m.file_id
                WHERE m.genre_id = ? ORDER BY f.path
                """, arguments: [genre.id!]).map {
                    try (path: $0.at(0) as String, score: $0.at(1) as Double, explanation: $0.at(2) as String)
                }
            return (genre, members)
        }
    }

    /// Tempo, loudness and year of every present file of the library at `rootId` (of every library when nil),
    /// for the report's charts.
    public static func libraryNumbers(_ db: Database, rootId: Int64?) throws -> [(path: String, bpm: Double?, lufs: Double?, year: Int?)] {
        try Row.fetchAll(db, sql: """
            SELECT f.path, a.bpm, a.lufs_integrated, t.year FROM files f
            LEFT JOIN analysis a ON a.file_id = f.id AND a.status = 'ok' LEFT JOIN tracks t ON t.file_id = f.id
            WHERE f.status = 'present' AND (?1 IS NULL OR f.root_id = ?1) ORDER BY f.path
            """, arguments: [rootId]).map { try ($0.at(0), $0.at(1), $0.at(2), $0.at(3)) }
    }
}
