import Foundation

/// One named result of an analyzer: what becomes an `analysis` column (named as in `inspect --json`) or, for
/// `vis_frames`, the frames blob. Values are finite: a result that is not a number is absent (null).
public enum AnalysisValue: Sendable, Equatable, Codable {
    case number(Double)
    case integer(Int)
    case flag(Bool)
    case text(String)
    case bytes(Data)

    /// A number, or nil when it is missing or not finite (never NaN or ±inf in a column or in JSON).
    public static func number(_ value: Double?) -> AnalysisValue? {
        guard let value, value.isFinite else { return nil }
        return .number(value)
    }

    public var double: Double? {
        switch self {
        case .number(let d): return d
        case .integer(let i): return Double(i)
        default: return nil
        }
    }

    public var int: Int? {
        switch self {
        case .integer(let i): return i
        case .number(let d): return d.isFinite ? Int(exactly: d.rounded()) : nil
        default: return nil
        }
    }

    public var bool: Bool? { if case .flag(let b) = self { return b } else { return nil } }
    public var data: Data? { if case .bytes(let d) = self { return d } else { return nil } }
    public var text: String? { if case .text(let s) = self { return s } else { return nil } }
}
