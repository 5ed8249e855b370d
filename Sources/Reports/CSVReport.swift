import Genres

/// One row per membership: genre, kind, confidence, size, path, score, explanation (RFC 4180 quoting).
enum CSVReport {
    static func render(_ data: ReportData) -> String {
        var lines = ["genre,kind,confidence,size,path,score,explanation"]
        for g in data.genres {
            for m in g.members {
                lines.append([g.name, g.kind.rawValue, JSONReport.number(g.confidence), String(g.members.count), m.path,
                              JSONReport.number(m.score), m.explanation].map(field).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func field(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }
}
