import Foundation
import TOMLKit
import TextFormats

/// Rule templates from data/genre-rules.toml.
public struct RuleSet: Sendable {
    public struct Rule: Sendable, Equatable {
        public var template: String
        public var minBPM: Double?
        public var maxBPM: Double?
        public var minEnergy: Double?
        public var maxEnergy: Double?
        public var excludeLanguages: [String] = []
        public var weight: Double = 1

        public init(template: String) { self.template = template }
    }

    public var rules: [Rule]
    public var minSize = 3
    public var minConfidence = 0.5

    public init(rules: [Rule], minSize: Int = 3, minConfidence: Double = 0.5) {
        self.rules = rules
        self.minSize = minSize
        self.minConfidence = minConfidence
    }

    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Parses the rules file's text; unknown placeholders are refused.
    public static func parse(_ text: String) throws -> RuleSet {
        let table: TOMLTable
        do { table = try TOMLText.table(text) } catch { throw ParseError(description: "genre rules: \(error)") }
        func number(_ t: TOMLTable, _ key: String) -> Double? {
            if let d = t[key]?.double { return d }
            if let i = t[key]?.int { return Double(i) }
            return nil
        }
        var set = RuleSet(rules: [])
        if let v = table["min_size"]?.int { set.minSize = v }
        if let v = number(table, "min_confidence") { set.minConfidence = v }
        for item in table["rule"]?.array ?? TOMLArray() {
            guard let t = item.table, let template = t["template"]?.string else {
                throw ParseError(description: "genre rules: every [[rule]] needs a template")
            }
            for placeholder in Self.placeholders(in: template) where !Self.known.contains(placeholder) {
                throw ParseError(description: "genre rules: unknown placeholder {\(placeholder)} in \"\(template)\"")
            }
            var rule = Rule(template: template)
            rule.minBPM = number(t, "min_bpm")
            rule.maxBPM = number(t, "max_bpm")
            rule.minEnergy = number(t, "min_energy")
            rule.maxEnergy = number(t, "max_energy")
            rule.weight = number(t, "weight") ?? 1
            rule.excludeLanguages = (t["exclude_languages"]?.array ?? TOMLArray()).compactMap { $0.string }
            set.rules.append(rule)
        }
        return set
    }

    static let known: Set<String> = ["language", "country", "genre", "family", "decade"]

    static func placeholders(in template: String) -> [String] {
        var out: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return out
    }
}
