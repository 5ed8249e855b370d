import Foundation
import Genres

enum MarkdownReport {
    static func render(_ data: ReportData) -> String {
        var out = "# \(data.title)\n\n"
        out += "\(data.genres.count) composite genres over \(data.tracks.count) tracks.\n\n"
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

    /// Text from tags, file names and rules as inert Markdown: Markdown's own punctuation (links, images,
    /// emphasis, table pipes) backslash-escaped, on one line, then HTML escaped as the HTML report escapes it.
    static func cell(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "\\", "`", "*", "_", "[", "]", "(", ")", "#", "!", "|", "~", "{", "}":
                out.append("\\")
                out.append(c)
            case "\n", "\r", "\t":
                out.append(" ")
            default:
                out.append(c)
            }
        }
        return HTMLReport.escape(out)
    }
}
