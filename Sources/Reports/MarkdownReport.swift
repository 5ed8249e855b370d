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
            out += "\n## \(g.name)\n\n\(g.kind.rawValue), confidence \(String(format: "%.2f", g.confidence)): \(g.description)\n\n"
            out += "| track | score | why |\n|---|---:|---|\n"
            for m in g.members {
                out += "| \(cell(m.path)) | \(String(format: "%.2f", m.score)) | \(cell(m.explanation)) |\n"
            }
        }
        return out
    }

    static func cell(_ s: String) -> String {
        s.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
