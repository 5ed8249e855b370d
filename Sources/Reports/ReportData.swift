import Foundation
import Genres

/// What a genre report shows: the genres with their members, and the library-wide numbers the charts draw.
public struct ReportData: Sendable {
    public struct Track: Sendable {
        public var path: String
        public var bpm: Double?
        public var lufs: Double?
        public var year: Int?
        public init(path: String, bpm: Double?, lufs: Double?, year: Int?) {
            self.path = path; self.bpm = bpm; self.lufs = lufs; self.year = year
        }
    }

    public var title: String
    public var generatedAt: Date
    public var genres: [CompositeGenre]
    public var tracks: [Track]

    public init(title: String = "Spindle genre report", generatedAt: Date = Date(), genres: [CompositeGenre], tracks: [Track]) {
        self.title = title
        self.generatedAt = generatedAt
        self.genres = genres
        self.tracks = tracks
    }

    /// Counts per bucket of `width`, from the lowest to the highest non-empty bucket.
    static func histogram(_ values: [Double], width: Double) -> [(start: Double, count: Int)] {
        guard let lo = values.min(), let hi = values.max() else { return [] }
        let first = (lo / width).rounded(.down) * width
        let buckets = Int(((hi - first) / width).rounded(.down)) + 1
        var counts = [Int](repeating: 0, count: buckets)
        for v in values { counts[min(buckets - 1, Int((v - first) / width))] += 1 }
        return counts.enumerated().map { (first + Double($0.offset) * width, $0.element) }
    }

    var decades: [(String, Int)] {
        var counts: [Int: Int] = [:]
        for y in tracks.compactMap(\.year) where y >= 1900 { counts[y / 10 * 10, default: 0] += 1 }
        return counts.keys.sorted().map { ("\($0)s", counts[$0]!) }
    }
}

public enum ReportFormat: String, CaseIterable, Sendable {
    case html, md, csv, json

    public func render(_ data: ReportData) -> String {
        switch self {
        case .html: return HTMLReport.render(data)
        case .md: return MarkdownReport.render(data)
        case .csv: return CSVReport.render(data)
        case .json: return JSONReport.render(data)
        }
    }
}
