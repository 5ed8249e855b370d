import Foundation

enum MarkdownReport {
    static func render(_ data: ReportData) -> String {
        var out = "# \(data.title)\n\n"
        out += "\(counted(data.genres.count, "composite genre")) over \(counted(data.tracks.count, "track")).\n\n"
        out += "| genre | kind | tracks | confidence |\n|---|---|---:|---:|\n"
        for g in data.genres {
            out += "| \(cell(g.name)) | \(g.kind.rawValue) | \(g.members.count) | \(String(format: "%.2f", g.confidence)) |\n"
        }
        for g in data.genres {
            out += "\n## \(cell(g.name))\n\n\(g.kind.rawValue), confidence \(String(format: "%.2f", g.confidence)): \(cell(g.description))\n\n"
            out += "| track | score | why |\n|---|---:|---|\n"
            let shown = ReportData.shownMembers(g)
            for m in shown.members {
                out += "| \(cell(m.path)) | \(String(format: "%.2f", m.score)) | \(cell(m.explanation)) |\n"
            }
            if shown.omitted > 0 { out += "\n\(ReportData.omittedNote(shown.omitted))\n" }
        }
        return out
    }

    /// Text from tags, file names and rules as inert Markdown that still reads as itself in a terminal:
    /// only what could start markup is backslash-escaped (CommonMark renders `\x` as `x` for any ASCII
    /// punctuation): code, emphasis, links and images (`[`), raw HTML and autolinks (`<`), table pipes,
    /// strikethrough, math (`$`), a closing heading `#`, an `_` that could open or close emphasis (not one
    /// inside a word, as in file names), and a `&` that starts an entity reference (`&copy;`, not `R&B`).
    /// Line breaks become spaces. Quotes, parentheses and braces stay as they are: "R&B from GENRE 'R&B'".
    static func cell(_ s: String) -> String {
        let chars = Array(s)
        var out = ""
        out.reserveCapacity(chars.count)
        for (i, c) in chars.enumerated() {
            switch c {
            case "\\", "`", "*", "[", "]", "<", "|", "~", "$", "#":
                out.append("\\")
                out.append(c)
            case "_" where !(i > 0 && i + 1 < chars.count && isWordCharacter(chars[i - 1]) && isWordCharacter(chars[i + 1])):
                out.append("\\_")
            case "&" where startsEntity(chars, at: i):
                out.append("\\&")
            case "\n", "\r", "\t":
                out.append(" ")
            default:
                out.append(c)
            }
        }
        return out
    }

    private static func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber }

    /// Whether `&` at `i` begins `&name;`, `&#123;` or `&#x1F;`: what CommonMark reads as a character.
    private static func startsEntity(_ chars: [Character], at i: Int) -> Bool {
        var j = i + 1
        if j < chars.count, chars[j] == "#" { j += 1 }
        let start = j
        while j < chars.count, chars[j].isASCII, chars[j].isLetter || chars[j].isNumber { j += 1 }
        return j > start && j < chars.count && chars[j] == ";"
    }
}
