import Foundation
import Genres
import Library
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
        let (database, root) = try LibraryJobs.openForReading(settings)
        let rootId = try database.writer.read { db in try FileQueries.rootId(db, path: root.path) }
        guard let rootId else {
            throw ConfigurationError("the database knows no library at \(root.path): run `spindle scan` first")
        }
        let space = try SonicLibrary.load(database, rootId: rootId).space()
        return try locate(input, in: space, resolver: PathResolver(database: database, root: root))
    }

    public static func locate(_ input: String, in space: SonicSpace?, resolver: PathResolver) throws -> SonicQuery {
        let resolution = try resolver.resolve(input)
        var query = SonicQuery(input: input, root: resolver.root.path, resolved: resolution.resolved,
                               resolution: resolution, space: space)
        guard let path = resolution.resolved else {
            query.problem = resolution.failure
            return query
        }
        guard let space else {
            query.problem = "fewer than two tracks have a feature vector: run `spindle analyze` first"
            return query
        }
        query.row = space.index(of: path)
        if query.row == nil { query.problem = "not analysed yet (no feature vector): run `spindle analyze`" }
        return query
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
