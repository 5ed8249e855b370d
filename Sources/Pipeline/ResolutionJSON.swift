import Library

/// `resolve --json`: DESIGN's keys first, then what explains a null.
public enum ResolutionJSON {
    public static func json(_ r: Resolution) -> JSONValue {
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
}
