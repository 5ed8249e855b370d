/// A request's query string, parsed strictly: `+` is a space, `%XX` a byte, and every value must be valid
/// UTF-8 with no NUL. Hummingbird's own parser hands back the raw text when decoding fails, which would
/// send `%ff` to the resolver as a file name; here it is a 400.
struct QueryString {
    private var values: [(name: String, value: String, plusKept: String?)] = []

    init(_ query: String?) throws {
        guard let query, !query.isEmpty else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decode(parts[0], what: "parameter name")
            let raw = parts.count > 1 ? parts[1] : ""
            let value = try Self.decode(raw, what: "value of \(name)")
            let plusKept = raw.contains("+") ? try Self.decode(raw, what: "value of \(name)", keepingPlus: true) : nil
            values.append((name, value, plusKept))
        }
    }

    /// The first value of `name`, or nil.
    subscript(_ name: String) -> String? { values.first { $0.name == name }?.value }

    /// The readings of `name`'s first value as a path: the form encoding's (`+` a space) first, then, when
    /// the value held a `+`, the one that keeps it. Swift's `URLComponents` and hand-built URLs leave the `+`
    /// of a file name ("Rock + Roll.flac") unencoded, so either may be what the client meant; the route
    /// takes the first that names a library file (`ServedLibrary.Open.pathReading`). A 400 when absent or
    /// empty, as `required`.
    func pathReadings(_ name: String) throws -> [String] {
        let value = try required(name)
        return [value] + (values.first { $0.name == name }?.plusKept.map { [$0] } ?? [])
    }

    /// The first value of `name`; a 400 naming it when absent or empty.
    func required(_ name: String) throws -> String {
        guard let value = self[name], !value.isEmpty else {
            throw APIError(.badRequest, "missing query parameter \(name)")
        }
        return value
    }

    /// An integer parameter within `range`, `fallback` when absent.
    func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = self[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw APIError(.badRequest, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A number of seconds, nil when absent; a 400 unless it is finite and not negative (above 0 when `positive`).
    func seconds(_ name: String, positive: Bool = false) throws -> Double? {
        guard let text = self[name] else { return nil }
        guard let value = Double(text), value.isFinite, positive ? value > 0 : value >= 0 else {
            throw APIError(.badRequest, "\(name) must be a number of seconds \(positive ? "above 0" : "from 0")")
        }
        return value
    }

    static func decode(_ text: Substring, what: String, keepingPlus: Bool = false) throws -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var i = text.utf8.startIndex
        let utf8 = text.utf8
        while i < utf8.endIndex {
            let byte = utf8[i]
            if byte == UInt8(ascii: "%") {
                let h = utf8.index(after: i)
                guard h < utf8.endIndex, utf8.index(after: h) < utf8.endIndex,
                      let high = hex(utf8[h]), let low = hex(utf8[utf8.index(after: h)]) else {
                    throw APIError(.badRequest, "malformed percent-encoding in the \(what)")
                }
                bytes.append(high << 4 | low)
                i = utf8.index(h, offsetBy: 2)
                continue
            }
            bytes.append(byte == UInt8(ascii: "+") && !keepingPlus ? UInt8(ascii: " ") : byte)
            i = utf8.index(after: i)
        }
        guard !bytes.contains(0) else { throw APIError(.badRequest, "the \(what) contains a NUL byte") }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw APIError(.badRequest, "the \(what) is not valid UTF-8")
        }
        return decoded
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
