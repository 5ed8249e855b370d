import Foundation
import Library
import Similarity
import Store

/// A track named by a player or a person, found in the sonic space: the input goes through the
/// four-strategy resolver, then the resolved file must have a feature vector of the current version.
public struct SonicQuery: Sendable {
    public var input: String
    /// The library root the answer's paths are relative to.
    public var root: String
    public var resolved: String?
    /// How the resolver answered: the candidates it tried, or why it refused the input.
    public var resolution: Resolution?
    public var space: SonicSpace?
    public var row: Int?
    /// Why there is no row, in words for the user.
    public var problem: String?

    /// Loads the library's space and finds `input` in it.
    public static func locate(_ input: String, settings: Settings) throws -> SonicQuery {
        let (database, rootId, resolver) = try library(settings)
        let resolution = try resolver.resolve(input)
        // An input that names no file is told so before every vector is loaded (5 s for 100,000 tracks).
        let space = resolution.resolved == nil ? nil : try SonicLibrary.load(database, rootId: rootId).space()
        return try locate(input, resolution: resolution, in: space, resolver: resolver)
    }

    /// Two tracks found in one load of the space (`spindle path`).
    public static func locate(_ first: String, _ second: String, settings: Settings) throws -> (SonicQuery, SonicQuery) {
        let (database, rootId, resolver) = try library(settings)
        let (a, b) = (try resolver.resolve(first), try resolver.resolve(second))
        // Loaded when either end resolves, so that each end's own problem is told.
        let space = a.resolved == nil && b.resolved == nil ? nil : try SonicLibrary.load(database, rootId: rootId).space()
        return (try locate(first, resolution: a, in: space, resolver: resolver),
                try locate(second, resolution: b, in: space, resolver: resolver))
    }

    /// The settings' library, opened for reading, with its resolver.
    private static func library(_ settings: Settings) throws -> (SpindleDatabase, Int64, PathResolver) {
        let (database, root) = try LibraryJobs.openForReading(settings)
        let rootId = try database.writer.read { db in try FileQueries.rootId(db, path: root.path) }
        guard let rootId else {
            throw ConfigurationError("the database knows no library at \(root.path): run `spindle scan` first")
        }
        return (database, rootId, try PathResolver(database: database, root: root))
    }

    public static func locate(_ input: String, in space: SonicSpace?, resolver: PathResolver) throws -> SonicQuery {
        try locate(input, resolution: try resolver.resolve(input), in: space, resolver: resolver)
    }

    /// `input` as `resolver` resolved it, in `space`.
    static func locate(_ input: String, resolution: Resolution, in space: SonicSpace?, resolver: PathResolver) throws -> SonicQuery {
        var query = SonicQuery(input: input, root: resolver.root.path, resolved: resolution.resolved,
                               resolution: resolution, space: space)
        guard let path = resolution.resolved else {
            query.problem = resolution.failure
            return query
        }
        query.row = space?.index(of: path)
        guard query.row == nil else { return query }
        let state = try resolver.database.writer.read { db in
            try GenreQueries.vectorState(db, rootId: resolver.rootId, path: path)
        }
        query.problem = space == nil && state?.hasVector == true
            ? "fewer than two tracks have a feature vector: run `spindle analyze` first"
            : Self.noVector(state)
        return query
    }

    /// Why a track is not in the sonic space. "Run analyze" only where analysing would give it a vector: a
    /// silent or failed track was told so after every run.
    static func noVector(_ state: GenreQueries.VectorState?) -> String {
        guard let state, state.analysed else { return "not analysed yet (no feature vector): run `spindle analyze`" }
        if let failure = state.failure { return "its analysis failed (\(failure)), so it has no sound profile to compare" }
        if state.isSilent { return "silent: a silent track has no sound profile to compare" }
        if !state.hasVector {
            let length = state.durationS.map { String(format: " (%.2f s)", $0) } ?? ""
            return "too little sound for a sound profile\(length)"
        }
        // A vector of another version than most tracks': the next `analyze` brings them to one version.
        return "its feature vector is of another version than the library's: run `spindle analyze`"
    }

    /// How the track was found when the input did not name it (`Resolution.guess`).
    public var guess: String? { resolution?.guess }

    /// The input, the file it resolved to when that reads otherwise, and the problem: one line for a person.
    public var failure: String {
        var subject = TerminalText.safe(input)
        if let resolved, resolved != input { subject += " (\(TerminalText.safe(resolved)))" }
        return "\(subject): \(TerminalText.safe(problem ?? "not found"))"
    }
}
