import Library

/// `spindle resolve`: each input resolved against the library, as a line for a person or DESIGN's JSON.
public struct ResolveReport: Sendable {
    let resolution: Resolution

    public var isResolved: Bool { resolution.resolved != nil }

    public static func resolve(_ inputs: [String], settings: Settings) throws -> [ResolveReport] {
        let (database, root) = try LibraryJobs.openForReading(settings)
        let resolver = try PathResolver(database: database, root: root)
        return try inputs.map { ResolveReport(resolution: try resolver.resolve($0)) }
    }

    /// DESIGN's keys first, then what explains a null.
    public func json() -> JSONValue {
        let r = resolution
        var pairs: [(String, JSONValue)] = [
            ("input", .string(r.input)),
            ("resolved", .from(r.resolved)),
            ("strategy", .from(r.strategy)),
            ("tried", .array(r.tried.map { .string($0) })),
        ]
        if !r.ambiguous.isEmpty { pairs.append(("ambiguous", .array(r.ambiguous.map { .string($0) }))) }
        if let refused = r.refused { pairs.append(("refused", .string(refused))) }
        return .object(pairs)
    }

    /// One line; names and paths from the library pass through TerminalText.
    public func text() -> String {
        let r = resolution
        let input = TerminalText.safe(r.input)
        if let resolved = r.resolved { return "\(input) → \(TerminalText.safe(resolved)) (strategy \(r.strategy!))" }
        return "\(input): \(TerminalText.safe(r.failure ?? ""))"
    }
}
