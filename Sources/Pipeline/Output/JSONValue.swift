import Analysis
import Foundation
import Reports

/// A JSON value with ordered object keys and explicit nulls: the output contracts name their keys and
/// their order, and a missing result must print as null, never be left out (nor be NaN or ±inf).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case integer(Int64)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }

    public static func from(_ value: Double?, digits: Int = 6) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        let scale = pow(10, Double(digits))
        return .number((value * scale).rounded() / scale)
    }
    public static func from(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
    public static func from(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    public static func from(_ value: Bool?) -> JSONValue { value.map { .bool($0) } ?? .null }

    public func serialized(pretty: Bool = false, indent: String = "") -> String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let d):
            guard d.isFinite else { return "null" }
            if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
            return String(d)
        case .string(let s): return Self.quote(s)
        case .array(let items):
            if items.isEmpty { return "[]" }
            if pretty {
                let inner = indent + "  "
                return "[\n" + items.map { inner + $0.serialized(pretty: true, indent: inner) }.joined(separator: ",\n")
                    + "\n" + indent + "]"
            }
            return "[" + items.map { $0.serialized() }.joined(separator: ",") + "]"
        case .object(let pairs):
            if pairs.isEmpty { return "{}" }
            if pretty {
                let inner = indent + "  "
                return "{\n" + pairs.map { inner + Self.quote($0.0) + ": " + $0.1.serialized(pretty: true, indent: inner) }
                    .joined(separator: ",\n") + "\n" + indent + "}"
            }
            return "{" + pairs.map { Self.quote($0.0) + ":" + $0.1.serialized() }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ s: String) -> String { JSONText.quote(s) }
}

extension JSONValue {
    /// `top_tags` as `inspect --json` and the read API give it: the tagger's five most probable tags,
    /// [{"tag", "probability"}], or null when the tagger has not run.
    public static func topTags(_ probabilities: [Float]?) -> JSONValue {
        guard let probabilities, probabilities.count == MusicnnTags.names.count else { return .null }
        return .array(MusicnnTags.top(probabilities, count: 5).map {
            .object([("tag", .string($0.tag)), ("probability", .from(Double($0.probability), digits: 3))])
        })
    }

    /// The same from the stored blob (`analysis.tag_probabilities`).
    public static func topTags(encoded: Data?) -> JSONValue { topTags(encoded.flatMap(FloatBlob.decode)) }
}
