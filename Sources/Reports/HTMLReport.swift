import Foundation

/// One self-contained HTML file: inline CSS and SVG charts (genres by size, tempo, loudness, decades), then
/// each genre with its tracks and why they are there.
enum HTMLReport {
    static func render(_ data: ReportData) -> String {
        let formatter = ISO8601DateFormatter()
        let bpms = data.tracks.compactMap(\.bpm)
        let lufs = data.tracks.compactMap(\.lufs)
        let sizes = data.genres.prefix(30).map { (label: $0.name, value: $0.members.count) }
        let tempo = ReportData.histogram(bpms, width: 10).map { (label: String(format: "%.0f", $0.start), value: $0.count) }
        let loudness = ReportData.histogram(lufs, width: 2).map { (label: String(format: "%.0f", $0.start), value: $0.count) }
        let decades = data.decades.map { (label: $0.0, value: $0.1) }
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(data.title))</title>
            <style>
            body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1100px;
                   padding: 0 1rem; color: #1d2430; background: #fafbfc; }
            h1 { font-size: 1.8rem; margin-bottom: .2rem; } h2 { margin-top: 2.2rem; border-bottom: 2px solid #e3e7ee; }
            .meta { color: #5b6575; } .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 1.2rem; }
            figure { background: #fff; border: 1px solid #e3e7ee; border-radius: 8px; padding: .8rem; margin: 0; }
            figcaption { font-weight: 600; margin-bottom: .4rem; } svg { max-width: 100%; height: auto; }
            svg .label { font-size: 12px; fill: #384152; } svg .value { font-size: 11px; fill: #5b6575; }
            svg .axis { stroke: #9aa3b2; } svg .axis-title { font-size: 12px; fill: #5b6575; }
            table { border-collapse: collapse; width: 100%; background: #fff; font-size: .9rem; }
            th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #eef1f5; vertical-align: top; }
            th { background: #f1f4f8; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
            .kind { display: inline-block; padding: 0 .45rem; border-radius: 9px; font-size: .8rem; color: #fff; }
            .rule { background: #3b6fd8; } .cluster { background: #d8783b; }
            .why { color: #4a5262; } figure.map { margin-top: 1.2rem; }
            </style></head><body>
            <h1>\(escape(data.title))</h1>
            <p class="meta">\(counted(data.genres.count, "composite genre")) over \(counted(data.tracks.count, "track")) · generated \(formatter.string(from: data.generatedAt))</p>
            <div class="charts">
            <figure><figcaption>Genres by size</figcaption>\(SVGChart.horizontal(sizes, color: "#3b6fd8"))</figure>
            <figure><figcaption>Tempo</figcaption>\(SVGChart.vertical(tempo, color: "#2f9e77", axis: "BPM"))</figure>
            <figure><figcaption>Loudness</figcaption>\(SVGChart.vertical(loudness, color: "#d8783b", axis: "integrated loudness (LUFS)"))</figure>
            <figure><figcaption>Decades</figcaption>\(SVGChart.vertical(decades, color: "#8a5cd1", axis: "decade"))</figure>
            </div>
            \(mapFigure(data.map))

            """
        html += "<h2>Genres</h2>\n<table><tr><th>genre</th><th>kind</th><th>tracks</th><th>confidence</th><th>basis</th></tr>\n"
        for (i, g) in data.genres.enumerated() {
            html += "<tr><td><a href=\"#g\(i)\">\(escape(g.name))</a></td><td><span class=\"kind \(g.kind.rawValue)\">\(g.kind.rawValue)</span></td>"
            html += "<td class=\"num\">\(g.members.count)</td><td class=\"num\">\(String(format: "%.2f", g.confidence))</td>"
            html += "<td class=\"why\">\(escape(g.description))</td></tr>\n"
        }
        html += "</table>\n"
        for (i, g) in data.genres.enumerated() {
            html += "<h2 id=\"g\(i)\">\(escape(g.name)) <span class=\"kind \(g.kind.rawValue)\">\(g.kind.rawValue)</span></h2>\n"
            html += "<p class=\"meta\">\(counted(g.members.count, "track")), confidence \(String(format: "%.2f", g.confidence)) · \(escape(g.description))</p>\n"
            html += "<table><tr><th>track</th><th>score</th><th>why</th></tr>\n"
            let shown = ReportData.shownMembers(g)
            for m in shown.members {
                html += "<tr><td>\(escape(m.path))</td><td class=\"num\">\(String(format: "%.2f", m.score))</td>"
                html += "<td class=\"why\">\(escape(m.explanation))</td></tr>\n"
            }
            html += "</table>\n"
            if shown.omitted > 0 { html += "<p class=\"meta\">\(escape(ReportData.omittedNote(shown.omitted)))</p>\n" }
        }
        return html + "</body></html>\n"
    }

    /// The library map, full width, with its legend and what the axes show.
    static func mapFigure(_ map: ReportData.Map?) -> String {
        guard let map, !map.points.isEmpty else { return "" }
        let sampled = map.points.count < map.tracks ? " (an even sample of \(map.points.count))" : ""
        let caption = String(format: "Library map: %d tracks%@ on the two main axes of the sonic space (%.0f %% and %.0f %% of the variance), coloured by cluster",
                             map.tracks, sampled, map.explained.0 * 100, map.explained.1 * 100)
        return "<figure class=\"map\"><figcaption>\(escape(caption))</figcaption>\(SVGChart.scatter(map))</figure>\n"
    }

    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
