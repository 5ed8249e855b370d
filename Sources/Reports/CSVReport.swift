
/// One row per membership: genre, kind, confidence, size, path, score, explanation (RFC 4180 quoting).
enum CSVReport {
    static func render(_ data: ReportData) -> String {
        var lines = ["genre,kind,confidence,size,path,score,explanation"]
        for g in data.genres {
            for m in g.members {
                lines.append([text(g.name), g.kind.rawValue, JSONReport.number(g.confidence), String(g.members.count),
                              text(m.path), JSONReport.number(m.score), text(m.explanation)].map(field).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A text cell a spreadsheet must not run: one starting with `=`, `+`, `-`, `@`, a tab or a carriage
    /// return (a formula, from a tag or a file name) gets a leading apostrophe, as OWASP advises.
    static func text(_ s: String) -> String {
        guard let first = s.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return s }
        return "'" + s
    }

    static func field(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }
}
