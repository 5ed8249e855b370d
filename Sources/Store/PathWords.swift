import Foundation
import GRDB

/// The words of a path for fuzzy matching: composed (NFC), case and accents folded, split on anything that is not a letter
/// or digit, without the file's extension and without its leading track number ("01 ", "1-03. ", "07 - "),
/// which says nothing about which song it is. Other numbers ("Song 2", "1999") are kept.
/// The fuzzy index (`file_words`) holds exactly these words, through the SQL function `spindle_path_words`,
/// so a query and the index fold every character (ß, ligatures, full-width forms) the same way.
public enum PathWords {
    public static func words(_ path: String) -> [String] {
        var components = path.split(separator: "/").map(String.init)
        guard let last = components.popLast() else { return [] }
        var name = stem(last)
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
        var seen = Set<String>()
        for text in components + [name] {
            for word in tokens(text) where seen.insert(word).inserted { out.append(word) }
        }
        return out
    }

    /// The words of a file's own name (the last component, without its extension), its leading track number
    /// included: what tells one track of a folder from its siblings. Numbers lose their leading zeros, so a
    /// server's "3 - Title" meets a file's "03 Title".
    public static func nameWords(_ path: String) -> Set<String> { Set(nameSequence(path)) }

    /// The words of a file's own name as `nameWords` gives them, in their order and with repeats: where two
    /// names hold the same words ("Symphony No. 1, Mvt. 2" and "Symphony No. 2, Mvt. 1"), the order tells them apart.
    public static func nameSequence(_ path: String) -> [String] {
        tokens(stem(String(path.split(separator: "/").last ?? ""))).map { word in
            guard word.allSatisfy({ $0.isASCII && $0.isNumber }) else { return word }
            let digits = word.drop { $0 == "0" }
            return digits.isEmpty ? "0" : String(digits)
        }
    }

    /// The length of the longest sequence of words two names hold in the same order (not necessarily
    /// adjacent): how much of one name the other spells in its order.
    public static func wordsInOrder(_ a: [String], _ b: [String]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        var previous = [Int](repeating: 0, count: b.count + 1)
        var current = previous
        for x in a {
            for (j, y) in b.enumerated() {
                current[j + 1] = x == y ? previous[j] + 1 : max(previous[j + 1], current[j])
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// A file name without its extension (a dot within the last 6 characters).
    private static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), name.distance(from: dot, to: name.endIndex) <= 6 else { return name }
        return String(name[..<dot])
    }

    private static func tokens(_ text: String) -> [String] {
        // Composed first: decomposed Hangul (a Mac's file names) is jamo, which no folding joins into syllables.
        let folded = text.precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return folded.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    /// `spindle_path_words(path)`: the words of a path joined by spaces, as the fuzzy index stores them.
    static let sqlFunction = DatabaseFunction("spindle_path_words", argumentCount: 1, pure: true) { values in
        guard let path = String.fromDatabaseValue(values[0]) else { return nil }
        return words(path).joined(separator: " ")
    }
}
