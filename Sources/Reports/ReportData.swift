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

    /// The library's map: every track (or an even sample of a large library) on the two principal axes of
    /// the sonic space, with the cluster genre it belongs to.
    public struct Map: Sendable {
        public struct Point: Sendable {
            public var path: String
            public var x: Double
            public var y: Double
            public var cluster: String?
            public init(path: String, x: Double, y: Double, cluster: String?) {
                self.path = path; self.x = x; self.y = y; self.cluster = cluster
            }
        }
        public var points: [Point]
        /// How many tracks the map stands for (more than `points` when sampled).
        public var tracks: Int
        /// Share of the variance the two axes show.
        public var explained: (Double, Double)
        public init(points: [Point], tracks: Int, explained: (Double, Double)) {
            self.points = points; self.tracks = tracks; self.explained = explained
        }
    }

    public var title: String
    public var generatedAt: Date
    public var genres: [CompositeGenre]
    public var tracks: [Track]
    public var map: Map?

    public init(title: String = "Spindle genre report", generatedAt: Date = Date(), genres: [CompositeGenre], tracks: [Track],
                map: Map? = nil) {
        self.title = title
        self.generatedAt = generatedAt
        self.genres = genres
        self.tracks = tracks
        self.map = map
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

    /// Members listed per genre in the HTML and Markdown reports. A library of 20,000 tracks made a 5.3 MB
    /// page listing every membership; the readable reports show the best-fitting members and say where the
    /// rest are (CSV and JSON list them all).
    public static let readableMembers = 200

    /// The members a readable report lists for `genre` (the `readableMembers` highest scores, in path
    /// order), and how many it leaves out.
    static func shownMembers(_ genre: CompositeGenre) -> (members: [Membership], omitted: Int) {
        guard genre.members.count > readableMembers else { return (genre.members, 0) }
        let best = genre.members.enumerated()
            .sorted { $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset }
            .prefix(readableMembers).sorted { $0.offset < $1.offset }.map(\.element)
        return (best, genre.members.count - readableMembers)
    }

    /// The line under a shortened member list.
    static func omittedNote(_ omitted: Int) -> String {
        "… and \(omitted) more with lower scores: spindle genres report --format csv (or json) lists every member."
    }
}

public enum ReportFormat: String, CaseIterable, Sendable {
    case html, md, csv, json

    /// Whether the format draws the library's map (`ReportData.map`), whose projection reads every vector.
    public var showsMap: Bool { self == .html }

    public func render(_ data: ReportData) -> String {
        switch self {
        case .html: return HTMLReport.render(data)
        case .md: return MarkdownReport.render(data)
        case .csv: return CSVReport.render(data)
        case .json: return JSONReport.render(data)
        }
    }
}
