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

    private static func header(_ width: Int, _ height: Int) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" role=\"img\">"
    }

    private static func empty(_ width: Int) -> String {
        header(width, 40) + "<text x=\"8\" y=\"24\" class=\"label\">no data</text></svg>"
    }
}
