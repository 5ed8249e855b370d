import Foundation

/// Inline SVG bar charts: no scripts, no fonts to fetch, readable offline.
enum SVGChart {
    /// Horizontal bars with their labels on the left (genres by size).
    static func horizontal(_ items: [(label: String, value: Int)], color: String, width: Int = 640) -> String {
        guard !items.isEmpty else { return empty(width) }
        let rowHeight = 22, labelWidth = 230, top = 8
        let height = top * 2 + rowHeight * items.count
        let maxValue = max(1, items.map(\.value).max()!)
        let barSpace = Double(width - labelWidth - 50)
        var svg = header(width, height)
        for (i, item) in items.enumerated() {
            let y = top + i * rowHeight
            let w = max(2, Int(barSpace * Double(item.value) / Double(maxValue)))
            svg += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 15)\" text-anchor=\"end\" class=\"label\">\(HTMLReport.escape(item.label))</text>"
            svg += "<rect x=\"\(labelWidth)\" y=\"\(y + 3)\" width=\"\(w)\" height=\"\(rowHeight - 6)\" rx=\"3\" fill=\"\(color)\"/>"
            svg += "<text x=\"\(labelWidth + w + 6)\" y=\"\(y + 15)\" class=\"value\">\(item.value)</text>"
        }
        return svg + "</svg>"
    }

    /// Vertical bars over labelled buckets (histograms, decades).
    static func vertical(_ items: [(label: String, value: Int)], color: String, axis: String, width: Int = 640) -> String {
        guard !items.isEmpty else { return empty(width) }
        let height = 220, left = 36, bottom = 40, top = 12
        let plotHeight = Double(height - bottom - top)
        let maxValue = max(1, items.map(\.value).max()!)
        let slot = Double(width - left - 10) / Double(items.count)
        var svg = header(width, height)
        svg += "<line x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width - 6)\" y2=\"\(height - bottom)\" class=\"axis\"/>"
        svg += "<text x=\"\(left - 6)\" y=\"\(top + 10)\" text-anchor=\"end\" class=\"value\">\(maxValue)</text>"
        let labelEvery = max(1, Int((Double(items.count) / 12).rounded(.up)))
        for (i, item) in items.enumerated() {
            let h = plotHeight * Double(item.value) / Double(maxValue)
            let x = Double(left) + Double(i) * slot + slot * 0.1
            svg += String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"2\" fill=\"%@\"><title>%@: %d</title></rect>",
                          x, Double(height - bottom) - h, slot * 0.8, h, color, HTMLReport.escape(item.label), item.value)
            if i % labelEvery == 0 {
                svg += String(format: "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"label\">%@</text>",
                              x + slot * 0.4, height - bottom + 16, HTMLReport.escape(item.label))
            }
        }
        svg += "<text x=\"\(width / 2)\" y=\"\(height - 4)\" text-anchor=\"middle\" class=\"axis-title\">\(HTMLReport.escape(axis))</text>"
        return svg + "</svg>"
    }

    /// Distinct colours for the clusters, in the order of their size; tracks in no cluster are grey.
    static let palette = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324",
                          "#469990", "#808000"]
    static let unclustered = "#b8bec9"

    /// The library map: one dot per track, a legend per cluster.
    static func scatter(_ map: ReportData.Map, width: Int = 1040, height: Int = 560) -> String {
        var counts: [String: Int] = [:]
        for p in map.points { if let c = p.cluster { counts[c, default: 0] += 1 } }
        let clusters = counts.keys.sorted { (counts[$0]!, $1) > (counts[$1]!, $0) }
        let colour = Dictionary(uniqueKeysWithValues: clusters.enumerated().map { ($0.element, palette[$0.offset % palette.count]) })
        let legendWidth = 260, pad = 14
        let xs = map.points.map(\.x), ys = map.points.map(\.y)
        let (x0, x1) = (xs.min()!, xs.max()!), (y0, y1) = (ys.min()!, ys.max()!)
        let plotW = Double(width - legendWidth - 2 * pad), plotH = Double(height - 2 * pad)
        func sx(_ x: Double) -> Double { Double(pad) + (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5) * plotW }
        func sy(_ y: Double) -> Double { Double(pad) + (y1 > y0 ? (y1 - y) / (y1 - y0) : 0.5) * plotH }
        let radius = map.points.count > 2000 ? 2.5 : 4.5
        var svg = header(width, height)
        svg += "<rect x=\"\(pad / 2)\" y=\"\(pad / 2)\" width=\"\(Int(plotW) + pad)\" height=\"\(Int(plotH) + pad)\" fill=\"#fff\" class=\"axis\"/>"
        // Unclustered first, so the coloured dots lie on top.
        for p in map.points.sorted(by: { ($0.cluster == nil ? 0 : 1) < ($1.cluster == nil ? 0 : 1) }) {
            let fill = p.cluster.flatMap { colour[$0] } ?? unclustered
            svg += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%@\"><title>%@</title></circle>",
                          sx(p.x), sy(p.y), radius, fill, HTMLReport.escape(p.path + (p.cluster.map { " · " + $0 } ?? "")))
        }
        let legendX = width - legendWidth + 8
        for (i, name) in (clusters + (map.points.contains { $0.cluster == nil } ? ["in no cluster"] : [])).enumerated() {
            let y = pad + 10 + i * 22
            let fill = colour[name] ?? unclustered
            svg += "<rect x=\"\(legendX)\" y=\"\(y - 10)\" width=\"14\" height=\"14\" rx=\"3\" fill=\"\(fill)\"/>"
            let label = name == "in no cluster" ? name : "\(name) (\(counts[name]!))"
            svg += "<text x=\"\(legendX + 20)\" y=\"\(y + 2)\" class=\"label\">\(HTMLReport.escape(label))</text>"
        }
        return svg + "</svg>"
    }

    private static func header(_ width: Int, _ height: Int) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" role=\"img\">"
    }

    private static func empty(_ width: Int) -> String {
        header(width, 40) + "<text x=\"8\" y=\"24\" class=\"label\">no data</text></svg>"
    }
}
