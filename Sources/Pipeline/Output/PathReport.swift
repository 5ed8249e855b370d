import Foundation
import Similarity

/// `spindle path A B`: a journey from one track to another through the sonic space (`SongPath`), as an
/// extended M3U (for a player) or JSON.
public struct PathReport: Sendable {
    public var start: SonicQuery
    public var end: SonicQuery
    public var steps: [MixPlanner.Step]
    /// How many tracks were asked for, the two ends included.
    public var asked: Int

    public var isAnswered: Bool { start.row != nil && end.row != nil }

    public static func run(from start: String, to end: String, count: Int, settings: Settings) throws -> PathReport {
        let (a, b) = try SonicQuery.locate(start, end, settings: settings)
        return make(from: a, to: b, count: count)
    }

    public static func make(from start: SonicQuery, to end: SonicQuery, count: Int) -> PathReport {
        guard let space = start.space, let a = start.row, let b = end.row else {
            return PathReport(start: start, end: end, steps: [], asked: count)
        }
        return PathReport(start: start, end: end, steps: SongPath(space: space).plan(from: a, to: b, count: count), asked: count)
    }

    /// Why an end was not found, one line a failed end.
    public var failures: [String] { [start, end].filter { $0.row == nil }.map(\.failure) }

    /// Why the path holds fewer tracks than asked (nil when it holds them all or an end was not found).
    public var shortfall: String? {
        guard isAnswered, steps.count < asked, let space = start.space else { return nil }
        let head = "path of \(steps.count) of the \(asked) tracks asked: "
        if start.row == end.row { return head + "it starts where it ends" }
        if steps.count >= space.count { return head + "every track with a sound profile is in it (\(space.count))" }
        return head + "no other track along the way can follow (a recording already in it, or the artist just played)"
    }

    public func render(_ format: MixReport.Format) -> String {
        switch format {
        case .json: return json().serialized(pretty: true)
        case .m3u:
            guard let space = start.space, isAnswered else { return "" }
            return MixReport.m3u(steps, in: space, root: start.root)
        }
    }

    public func json() -> JSONValue {
        var pairs: [(String, JSONValue)] = [("start", .string(start.input)), ("end", .string(end.input)),
                                            ("resolved_start", .from(start.resolved)), ("resolved_end", .from(end.resolved))]
        let tracks = start.space.map { space in steps.map { MixReport.json($0, in: space) } } ?? []
        pairs.append(("tracks", .array(tracks)))
        if !failures.isEmpty { pairs.append(("error", .string(failures.joined(separator: "; ")))) }
        if let shortfall { pairs.append(("shortfall", .string(shortfall))) }
        return .object(pairs)
    }
}
