import Foundation
import Similarity

/// `spindle similar`: the nearest tracks to one, each with its distance and a short why.
public struct SimilarReport: Sendable {
    public struct Neighbour: Sendable {
        public var path: String
        public var distance: Double
        public var why: String
    }

    public var query: SonicQuery
    public var neighbours: [Neighbour]

    public var isAnswered: Bool { query.row != nil }

    public static func run(_ input: String, count: Int, settings: Settings) throws -> SimilarReport {
        make(try SonicQuery.locate(input, settings: settings), count: count)
    }

    public static func make(_ query: SonicQuery, count: Int) -> SimilarReport {
        guard let space = query.space, let row = query.row else { return SimilarReport(query: query, neighbours: []) }
        let neighbours = space.nearest(to: row, count: count).map {
            Neighbour(path: space.tracks[$0.row].path, distance: $0.distance, why: space.why(row, $0.row))
        }
        return SimilarReport(query: query, neighbours: neighbours)
    }

    /// DESIGN's `{"input", "resolved", "neighbours": [{"path", "distance", "why"}]}`, plus "error" when
    /// there are no neighbours to give.
    public func json() -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("input", .string(query.input)),
            ("resolved", .from(query.resolved)),
            ("neighbours", .array(neighbours.map {
                .object([("path", .string($0.path)), ("distance", .from($0.distance, digits: 4)), ("why", .string($0.why))])
            })),
        ]
        if let problem = query.problem { pairs.append(("error", .string(problem))) }
        return .object(pairs)
    }

    public func text() -> String {
        guard let resolved = query.resolved, query.row != nil else { return query.failure }
        var lines = ["tracks like \(TerminalText.safe(resolved))\(query.guess.map { " (\($0))" } ?? ""):"]
        for (i, n) in neighbours.enumerated() {
            lines.append(String(format: "%3d. %.3f  %@  (%@)", i + 1, n.distance, TerminalText.safe(n.path), n.why))
        }
        return lines.joined(separator: "\n")
    }
}
