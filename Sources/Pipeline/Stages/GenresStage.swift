import Foundation
import GRDB
import Genres
import Library
import Reports
import Similarity
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

    public static func build(database: SpindleDatabase, rootId: Int64) throws -> Report {
        let started = monotonicSeconds()
        let library = try SonicLibrary.load(database, rootId: rootId)
        let builder = GenreBuilder(taxonomy: try DataFiles.taxonomy(), rules: try DataFiles.rules())
        let output = builder.build(library.inputs, featureNames: library.featureNames)
        let ids = Dictionary(uniqueKeysWithValues: library.rows.map { ($0.input.path, $0.fileId) })
        var report = Report()
        let now = Date()
        let records = output.genres.map { genre in
            (CompositeGenreRecord(name: genre.name, kind: genre.kind == .cluster ? .cluster : .rule, confidence: genre.confidence,
                                  size: genre.members.count, description: genre.description, builtAt: now),
             genre.members.compactMap { m in
                 ids[m.path].map { GenreMembershipRecord(genreId: 0, fileId: $0, score: m.score, explanation: m.explanation) }
             })
        }
        report.memberships = try database.writer.write { db in try GenreQueries.replace(db, rootId: rootId, with: records) }
        report.genres = output.genres.count
        report.dropped = output.dropped.count
        report.seconds = monotonicSeconds() - started
        return report
    }

    /// The stored genres and the library numbers of the library at `rootId` (of every library the database
    /// holds when nil), for a report; with the map when `map` (it loads every feature vector).
    public static func reportData(database: SpindleDatabase, rootId: Int64?, map withMap: Bool = true) throws -> ReportData {
        let (stored, numbers) = try database.writer.read { db in
            (try GenreQueries.stored(db, rootId: rootId), try GenreQueries.libraryNumbers(db, rootId: rootId))
        }
        let genres = stored.map { genre, members in
            CompositeGenre(name: genre.name, kind: genre.kind == .cluster ? .cluster : .rule, confidence: genre.confidence,
                           description: genre.description,
                           members: members.map { Membership(path: $0.path, score: $0.score, explanation: $0.explanation) })
        }
        return ReportData(genres: genres, tracks: numbers.map { ReportData.Track(path: $0.path, bpm: $0.bpm, lufs: $0.lufs, year: $0.year) },
                          map: withMap ? try map(database: database, rootId: rootId, genres: genres) : nil)
    }

    /// At most this many dots on the report's map: beyond it, an even sample (in path order).
    static let mapPoints = 5000

    /// The report's map: the sonic space projected on its two principal axes, each dot coloured by the
    /// cluster genre that holds the track most strongly. One library's: none for several at once (a database
    /// with one library always has it named, by `--library` or as its only one).
    static func map(database: SpindleDatabase, rootId: Int64?, genres: [CompositeGenre]) throws -> ReportData.Map? {
        guard let rootId, let space = try SonicLibrary.load(database, rootId: rootId).space() else { return nil }
        var cluster: [String: (name: String, score: Double)] = [:]
        for genre in genres where genre.kind == .cluster {
            for m in genre.members where (cluster[m.path]?.score ?? -1) < m.score { cluster[m.path] = (genre.name, m.score) }
        }
        let projection = Projection(space)
        let step = max(1, (space.count + mapPoints - 1) / mapPoints)
        let points = Swift.stride(from: 0, to: space.count, by: step).map { i in
            ReportData.Map.Point(path: space.tracks[i].path, x: projection.x[i], y: projection.y[i], cluster: cluster[space.tracks[i].path]?.name)
        }
        return ReportData.Map(points: points, tracks: space.count, explained: projection.explained)
    }

    /// `genres report`: the stored genres of the settings' library, or of the database's only one (of all its
    /// libraries when it holds several and none is named); a missing database is a usage error, not a new file.
    public static func report(settings: Settings, format: ReportFormat, output: String?) throws -> String? {
        let database = try LibraryJobs.existingDatabaseForReading(settings)
        var rootId: Int64?
        if let named = try? LibraryJobs.libraryPath(settings, database: database) {
            // A library whose folder is not mounted still has its genres in the database.
            let path = (try? LibraryRoot(path: named))?.path ?? named
            rootId = try database.writer.read { db in try FileQueries.rootId(db, path: path) }
            if rootId == nil { throw ConfigurationError("the database knows no library at \(path): run `spindle scan` first") }
        }
        return try report(database: database, rootId: rootId, format: format, output: output)
    }

    /// Renders the stored genres of the library at `rootId` (all when nil); writes `output` when given (returns
    /// nil), else returns the text.
    public static func report(database: SpindleDatabase, rootId: Int64?, format: ReportFormat, output: String?) throws -> String? {
        let text = format.render(try reportData(database: database, rootId: rootId, map: format.showsMap))
        guard let output else { return text }
        do {
            try AtomicFile.write(Data(text.utf8), to: output)
        } catch {
            throw PipelineError("cannot write the report to \(output): \(error.reason)")
        }
        return nil
    }
}
