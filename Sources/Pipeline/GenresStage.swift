import Foundation
import Genres
import GRDB
import Reports
import Store

/// Stage 4: rebuild composite genres from `tracks` and `analysis`, replacing both tables in one
/// transaction. Stage 5: render the report from what is stored.
public enum GenresStage {
    public struct Report: Sendable {
        public var genres = 0
        public var memberships = 0
        public var dropped = 0
        public var seconds = 0.0
    }

    static func inputs(_ database: SpindleDatabase) throws -> [(Int64, TrackInput)] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT f.id, f.path, t.title, t.artist, t.album, t.genres, t.year, t.language, t.release_country,
                       a.bpm, a.lufs_integrated, a.loudness_range_lu, a.spectrum_low, a.spectrum_mid, a.spectrum_high
                FROM files f LEFT JOIN tracks t ON t.file_id = f.id
                LEFT JOIN analysis a ON a.file_id = f.id AND a.status = 'ok'
                WHERE f.status = 'present' ORDER BY f.path
                """).map { row in
                var genres: [String] = []
                if let json: String = row[5], let list = try? JSONDecoder().decode([String].self, from: Data(json.utf8)) {
                    genres = list
                }
                let spectrum: [Double]? = (row[12] as Double?).flatMap { low in
                    guard let mid: Double = row[13], let high: Double = row[14] else { return nil }
                    return [low, mid, high]
                }
                return (row[0], TrackInput(path: row[1], title: row[2], artist: row[3], album: row[4], genres: genres,
                                           year: row[6], languageTag: row[7], country: row[8], bpm: row[9], lufs: row[10],
                                           loudnessRange: row[11], spectrum: spectrum))
            }
        }
    }

    public static func build(database: SpindleDatabase) throws -> Report {
        let started = monotonicSeconds()
        let rows = try inputs(database)
        let builder = GenreBuilder(taxonomy: try DataFiles.taxonomy(), rules: try DataFiles.rules())
        let output = builder.build(rows.map(\.1))
        let ids = Dictionary(uniqueKeysWithValues: rows.map { ($0.1.path, $0.0) })
        var report = Report()
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM genre_memberships")
            try db.execute(sql: "DELETE FROM composite_genres")
            let now = Date()
            for genre in output.genres {
                try db.execute(sql: """
                    INSERT INTO composite_genres (name, kind, confidence, size, description, built_at) VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [genre.name, genre.kind.rawValue, genre.confidence, genre.members.count, genre.description, now])
                let genreId = db.lastInsertedRowID
                for m in genre.members {
                    guard let fileId = ids[m.path] else { continue }
                    try db.execute(sql: "INSERT INTO genre_memberships (genre_id, file_id, score, explanation) VALUES (?, ?, ?, ?)",
                                   arguments: [genreId, fileId, m.score, m.explanation])
                    report.memberships += 1
                }
            }
        }
        report.genres = output.genres.count
        report.dropped = output.dropped.count
        report.seconds = monotonicSeconds() - started
        return report
    }

    /// The stored genres and the library numbers, for a report.
    public static func reportData(database: SpindleDatabase) throws -> ReportData {
        try database.writer.read { db in
            let genreRows = try Row.fetchAll(db, sql: """
                SELECT id, name, kind, confidence, description FROM composite_genres ORDER BY size DESC, name
                """)
            var genres: [CompositeGenre] = []
            for g in genreRows {
                let members = try Row.fetchAll(db, sql: """
                    SELECT f.path, m.score, m.explanation FROM genre_memberships m JOIN files f ON f.id = m.file_id
                    WHERE m.genre_id = ? ORDER BY f.path
                    """, arguments: [g[0] as Int64]).map { Membership(path: $0[0], score: $0[1], explanation: $0[2]) }
                genres.append(CompositeGenre(name: g[1], kind: CompositeGenre.Kind(rawValue: g[2]) ?? .rule,
                                             confidence: g[3], description: g[4], members: members))
            }
            let tracks = try Row.fetchAll(db, sql: """
                SELECT f.path, a.bpm, a.lufs_integrated, t.year FROM files f
                LEFT JOIN analysis a ON a.file_id = f.id AND a.status = 'ok' LEFT JOIN tracks t ON t.file_id = f.id
                WHERE f.status = 'present' ORDER BY f.path
                """).map { ReportData.Track(path: $0[0], bpm: $0[1], lufs: $0[2], year: $0[3]) }
            return ReportData(genres: genres, tracks: tracks)
        }
    }

    /// Renders the stored genres; writes `output` when given (returns nil), else returns the text.
    public static func report(database: SpindleDatabase, format: ReportFormat, output: String?) throws -> String? {
        let text = format.render(try reportData(database: database))
        guard let output else { return text }
        do {
            try text.write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            throw PipelineError("cannot write the report to \(output): \(error.localizedDescription)")
        }
        return nil
    }
}
