import TOMLKit

/// TOML for every file a user edits: the config file, pipeline files, the genre rules and the taxonomy.
///
/// TOMLKit's parser (toml++ 3.4) leaves a few malformed inputs to assertions, which abort the whole process
/// (and, built without assertions, read on in undefined behaviour): a table header such as `[.analysis]`,
/// `[é]` or `[ #`, an array such as `[1, }`. Those are refused here first, with the parser's own kind of
/// message, so a typo in a hand-edited file is a configuration error, not a crash of every nightly run.
public enum TOMLText {
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The text parsed as a table; throws the parser's error, or a `ParseError` where the parser would abort.
    public static func table(_ text: String) throws -> TOMLTable {
        if let problem = unparsable(text) { throw ParseError(description: problem) }
        return try TOMLTable(string: text)
    }

    /// The first place where TOMLKit's parser would abort instead of reporting, described as the parser
    /// describes errors; nil when there is none. Two such places are known: a table header whose name starts
    /// with a character no key starts with, and, where an array expects a value, a "}" or a vertical space
    /// beyond ASCII (U+0085, U+2028, U+2029). Strings and comments are stepped over, so a line of a
    /// multi-line string or a nested array's line that starts with "[" is no header.
    static func unparsable(_ text: String) -> String? {
        let s = Array(text.unicodeScalars)
        var open: [Unicode.Scalar] = []   // the arrays and inline tables open in a value
        var atLineStart = true            // nothing but blanks yet on this line
        var i = 0
        while i < s.count {
            let c = s[i]
            switch c {
            case "\n":
                atLineStart = true
                i += 1
            case " ", "\t", "\r":
                i += 1
            case "#":
                i = lineEnd(s, from: i)
            case "\"", "'":
                i = skipString(s, from: i)
                atLineStart = false
            case "[" where atLineStart && open.isEmpty:
                if let problem = headerProblem(s, at: i) { return problem }
                // The rest of the header's line: its name (quoted parts may hold "]" or "#") and a comment.
                i += 1
                while i < s.count, s[i] != "\n" {
                    if s[i] == "\"" || s[i] == "'" { i = skipString(s, from: i) } else if s[i] == "#" { i = lineEnd(s, from: i) } else { i += 1 }
                }
            case "[", ",":
                if c == "[" { open.append(c) }
                if open.last == "[", let problem = arrayValueProblem(s, after: i) { return problem }
                atLineStart = false
                i += 1
            case "{":
                open.append(c)
                atLineStart = false
                i += 1
            case "]", "}":
                if !open.isEmpty { open.removeLast() }
                atLineStart = false
                i += 1
            default:
                atLineStart = false
                i += 1
            }
        }
        return nil
    }

    /// A header ("[" or "[[", blanks as the parser skips them) must go on with a key; "]", "[ [" and the end
    /// of the text are the parser's own errors.
    private static func headerProblem(_ s: [Unicode.Scalar], at start: Int) -> String? {
        func blanks(from k: Int) -> Int {
            var k = k
            while k < s.count, s[k] == " " || s[k] == "\t" { k += 1 }
            return k
        }
        var j = blanks(from: start + 1)
        if j < s.count, s[j] == "[" {
            guard j == start + 1 else { return nil }
            j = blanks(from: j + 1)
        }
        guard j < s.count, s[j] != "]", !startsKey(s[j]) else { return nil }
        return "Error while parsing table header: expected bare key starting character or string delimiter, saw "
            + shown(s[j]) + position(s, j)
    }

    /// Where an array expects a value (after "[" or ","; blanks, line breaks and comments between), what
    /// the parser handles is a value, "]" or ","; "}" and the vertical spaces beyond ASCII it does not.
    private static func arrayValueProblem(_ s: [Unicode.Scalar], after start: Int) -> String? {
        var j = start + 1
        while j < s.count {
            switch s[j] {
            case " ", "\t", "\n": j += 1
            case "\r" where j + 1 < s.count && s[j + 1] == "\n": j += 2
            case "#": j = lineEnd(s, from: j)
            default:
                guard ["}", "\u{85}", "\u{2028}", "\u{2029}"].contains(s[j]) else { return nil }
                return "Error while parsing array: expected value or closing ']', saw " + shown(s[j]) + position(s, j)
            }
        }
        return nil
    }

    /// A character as the parser's messages show it: printable ones quoted, others as \uXXXX.
    private static func shown(_ c: Unicode.Scalar) -> String {
        if c == "\n" || c == "\r" { return "end of line" }
        if c.properties.generalCategory == .control || c.properties.isWhitespace || c.value >= 0x2028 && c.value <= 0x2029 {
            let hex = String(c.value, radix: 16, uppercase: true)
            return "'\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "'"
        }
        return "'\(c)'"
    }

    /// " (at line L, column C)" for the index `j`, counted as the parser counts: lines from 1, characters
    /// from 1 within the line.
    private static func position(_ s: [Unicode.Scalar], _ j: Int) -> String {
        var line = 1, lineStart = 0
        for k in 0..<j where s[k] == "\n" { line += 1; lineStart = k + 1 }
        return " (at line \(line), column \(j - lineStart + 1))"
    }

    private static func lineEnd(_ s: [Unicode.Scalar], from start: Int) -> Int {
        var i = start
        while i < s.count, s[i] != "\n" { i += 1 }
        return i
    }

    /// A bare key's characters (TOML 1.0: ASCII letters, digits, "_" and "-") or a quote.
    private static func startsKey(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-", "\"", "'": return true
        default: return false
        }
    }

    /// The index after the string starting at `start` (basic or literal, one line or multi-line); a string
    /// left open ends at its line's end (one line) or at the end of the text (multi-line).
    private static func skipString(_ s: [Unicode.Scalar], from start: Int) -> Int {
        let quote = s[start]
        let escapes = quote == "\""
        let multi = start + 2 < s.count && s[start + 1] == quote && s[start + 2] == quote
        var i = start + (multi ? 3 : 1)
        while i < s.count {
            let c = s[i]
            if escapes, c == "\\" { i += 2; continue }
            if c == "\n", !multi { return i }
            if c == quote {
                if !multi { return i + 1 }
                if i + 2 < s.count, s[i + 1] == quote, s[i + 2] == quote {
                    // Up to two more quotes may close with it ("""" ends with a quote inside).
                    var end = i + 3
                    while end < s.count, end < i + 5, s[end] == quote { end += 1 }
                    return end
                }
            }
            i += 1
        }
        return i
    }
}
