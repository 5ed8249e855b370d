import Foundation
import Similarity

/// `spindle mix`: an instant mix from a seed, as an extended M3U (for a player) or JSON.
public struct MixReport: Sendable {
    public enum Format: String, CaseIterable, Sendable { case m3u, json }

    public var query: SonicQuery
    public var steps: [MixPlanner.Step]
    /// How many tracks were asked for.
    public var asked: Int

    public var isAnswered: Bool { query.row != nil }

    public static func run(_ seed: String, count: Int, settings: Settings) throws -> MixReport {
        make(try SonicQuery.locate(seed, settings: settings), count: count)
    }

    public static func make(_ query: SonicQuery, count: Int) -> MixReport {
        guard let space = query.space, let row = query.row else { return MixReport(query: query, steps: [], asked: count) }
        return MixReport(query: query, steps: MixPlanner(space: space).plan(seed: row, count: count), asked: count)
    }

    /// Why the mix holds fewer tracks than `asked`, for the user (nil when it holds them all, or when the seed
    /// was not found: that has its own message). A small library, or one artist's discography, runs out of
    /// tracks that may follow. A player asking the read API gets it as the JSON's `shortfall`.
    public var shortfall: String? {
        guard isAnswered, steps.count < asked, let space = query.space else { return nil }
        let head = "mix of \(steps.count) of the \(asked) tracks asked: "
        // A library smaller than the mix is not a track that "cannot follow": say so, or a user looks for copies.
        if steps.count >= space.count { return head + "every track with a sound profile is in it (\(space.count))" }
        return head + "no other track near the seed can follow "
            + "(another encoding of a recording already in it, or the artist just played, never comes next)"
    }

    public func render(_ format: Format) -> String {
        switch format {
        case .json: return json().serialized(pretty: true)
        case .m3u: return m3u()
        }
    }

    public func json() -> JSONValue {
        var pairs: [(String, JSONValue)] = [("seed", .string(query.input)), ("resolved", .from(query.resolved))]
        if let space = query.space {
            pairs.append(("tracks", .array(steps.map { Self.json($0, in: space) })))
        } else {
            pairs.append(("tracks", .array([])))
        }
        if let problem = query.problem { pairs.append(("error", .string(problem))) }
        if let shortfall { pairs.append(("shortfall", .string(shortfall))) }
        return .object(pairs)
    }

    /// One track of a mix or a path, with how it follows the one before.
    static func json(_ step: MixPlanner.Step, in space: SonicSpace) -> JSONValue {
        let t = space.tracks[step.row]
        return .object([("path", .string(t.path)), ("artist", .from(t.artist)), ("title", .from(t.title)),
                        ("bpm", .from(t.bpm, digits: 2)), ("key", .from(t.key?.name)),
                        ("distance", .from(step.distance, digits: 4)), ("transition", .string(step.transition))])
    }

    /// Extended M3U with absolute paths (from the library root): the mix goes to standard output, so no
    /// folder to be relative to. Nothing without a mix: `spindle mix X > mix.m3u` must not leave a playlist
    /// that looks made.
    func m3u() -> String {
        guard let space = query.space, isAnswered else { return "" }
        return Self.m3u(steps, in: space, root: query.root)
    }

    /// The steps of a mix or a path as extended M3U, each path absolute from `root`.
    static func m3u(_ steps: [MixPlanner.Step], in space: SonicSpace, root: String) -> String {
        M3U.render(steps.map { space.tracks[$0.row] }, path: { root + "/" + $0.path })
    }
}
