import Foundation

/// DESIGN's contract: {"genres": [{"name", "kind", "confidence", "size", "members": [{"path", "score",
/// "explanation"}]}]}.
enum JSONReport {
    static func render(_ data: ReportData) -> String {
        var out = "{\"genres\": ["
        for (i, g) in data.genres.enumerated() {
            out += i == 0 ? "\n  " : ",\n  "
            out += "{\"name\": \(quote(g.name)), \"kind\": \(quote(g.kind.rawValue)), "
            out += "\"confidence\": \(number(g.confidence)), \"size\": \(g.members.count), \"members\": ["
            out += g.members.map {
                "\n    {\"path\": \(quote($0.path)), \"score\": \(number($0.score)), \"explanation\": \(quote($0.explanation))}"
            }.joined(separator: ",")
            out += g.members.isEmpty ? "]}" : "\n  ]}"
        }
        return out + (data.genres.isEmpty ? "]}\n" : "\n]}\n")
    }

    static func number(_ v: Double) -> String { v.isFinite ? String(format: "%.4f", v) : "null" }

    static func quote(_ s: String) -> String { JSONText.quote(s) }
}

/// JSON string literals: the one escaping routine every JSON output of Spindle uses.
public enum JSONText {
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
