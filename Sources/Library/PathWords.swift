import Foundation

/// The words of a path for fuzzy matching: case and accents folded, split on anything that is not a letter
/// or digit, without the file's extension and without its leading track number ("01 ", "1-03. ", "07 - "),
/// which says nothing about which song it is. Other numbers ("Song 2", "1999") are kept.
public enum PathWords {
    public static func words(_ path: String) -> [String] {
        var components = path.split(separator: "/").map(String.init)
        guard var name = components.popLast() else { return [] }
        if let dot = name.lastIndex(of: "."), name.distance(from: dot, to: name.endIndex) <= 6 {
            name = String(name[..<dot])
        }
        // A leading track number: digits, optionally disc-track ("1-03"), then a separator.
        let trimmed = name.drop { $0 == " " }
        let digits = trimmed.prefix { $0.isNumber || $0 == "-" }
        if !digits.isEmpty, digits.first!.isNumber, digits.filter(\.isNumber).count <= 4 {
            let rest = trimmed.dropFirst(digits.count)
            if rest.isEmpty == false, let next = rest.first, !(next.isLetter || next.isNumber) {
                name = String(rest)
            }
        }
        var out: [String] = []
        for text in components + [name] {
            let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            for token in folded.split(whereSeparator: { !($0.isLetter || $0.isNumber) }) {
                let word = String(token)
                if !out.contains(word) { out.append(word) }
            }
        }
        return out
    }
}
