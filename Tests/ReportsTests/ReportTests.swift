import Foundation
import Genres
@testable import Reports
import XCTest

final class ReportTests: XCTestCase {
    let data = ReportData(
        title: "Test report", generatedAt: Date(timeIntervalSince1970: 1_700_000_000),
        genres: [
            CompositeGenre(name: "Korean Pop", kind: .rule, confidence: 0.93, description: "rule {language} {family}",
                           members: [Membership(path: "a/사랑.mp3", score: 1, explanation: "language Korean from the LANGUAGE tag"),
                                     Membership(path: "b/\"quoted\", comma.mp3", score: 0.85, explanation: "genre <K-Pop> & more")]),
            CompositeGenre(name: "Upbeat 2010s Electronic", kind: .cluster, confidence: 0.71,
                           description: "cluster: 124–130 BPM, loud", members: [Membership(path: "c.flac", score: 0.6, explanation: "cluster: x")]),
        ],
        tracks: (0..<40).map { ReportData.Track(path: "t\($0)", bpm: 70 + Double($0) * 3, lufs: -20 + Double($0 % 10), year: 1970 + $0) },
        map: ReportData.Map(points: (0..<60).map(ReportTests.mapPoint), tracks: 60, explained: (0.41, 0.22)))

    /// Two clusters side by side and five tracks in none.
    static func mapPoint(_ i: Int) -> ReportData.Map.Point {
        let cluster: String? = i < 30 ? "Bright Percussive" : (i < 55 ? "Soft Sparse Minor" : nil)
        let x = Double(i % 10) + (i < 30 ? 0.0 : 20.0)
        return ReportData.Map.Point(path: "t\(i)", x: x, y: Double(i / 10), cluster: cluster)
    }

    func testJSONFollowsTheContract() throws {
        let text = ReportFormat.json.render(data)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let genres = try XCTUnwrap(object["genres"] as? [[String: Any]])
        XCTAssertEqual(genres.count, 2)
        XCTAssertEqual(Set(genres[0].keys), ["name", "kind", "confidence", "size", "members"])
        XCTAssertEqual(genres[0]["kind"] as? String, "rule")
        XCTAssertEqual(genres[0]["size"] as? Int, 2)
        let member = try XCTUnwrap((genres[0]["members"] as? [[String: Any]])?.last)
        XCTAssertEqual(Set(member.keys), ["path", "score", "explanation"])
        XCTAssertEqual(member["path"] as? String, "b/\"quoted\", comma.mp3")
    }

    func testCSVQuotesFields() {
        let lines = ReportFormat.csv.render(data).components(separatedBy: "\r\n")
        XCTAssertEqual(lines[0], "genre,kind,confidence,size,path,score,explanation")
        XCTAssertTrue(lines[2].contains("\"b/\"\"quoted\"\", comma.mp3\""), lines[2])
        XCTAssertEqual(lines.filter { !$0.isEmpty }.count, 4)
    }

    func testMarkdownHasATablePerGenre() {
        let md = ReportFormat.md.render(data)
        XCTAssertTrue(md.contains("## Korean Pop"))
        XCTAssertTrue(md.contains("| Upbeat 2010s Electronic | cluster | 1 | 0.71 |"))
        XCTAssertTrue(md.contains("2 composite genres over 40 tracks."), md)
    }

    /// A library of one track had "0 composite genres over 1 tracks", and a genre of one "1 tracks".
    func testCountsOfOneAreSingular() {
        let one = ReportData(genres: [data.genres[1]], tracks: [data.tracks[0]])
        XCTAssertTrue(ReportFormat.md.render(one).contains("1 composite genre over 1 track.\n"))
        let html = ReportFormat.html.render(one)
        XCTAssertTrue(html.contains("1 composite genre over 1 track ·"))
        XCTAssertTrue(html.contains("<p class=\"meta\">1 track, confidence 0.71"))
    }

    /// A large genre lists its best-fitting members in the readable reports, in path order, and says how
    /// many more CSV and JSON hold; a 20,000-track library had made a 5.3 MB page.
    func testReadableReportsListTheBestMembersOfALargeGenre() {
        let count = ReportData.readableMembers + 50
        // Scores fall with i, except that the last member fits best of all.
        let members = (0..<count).map { i in
            Membership(path: String(format: "t%04d.flac", i), score: i == count - 1 ? 2 : 1 - Double(i) / Double(count), explanation: "x")
        }
        let big = ReportData(genres: [CompositeGenre(name: "Big", kind: .cluster, confidence: 0.5, description: "d", members: members)],
                             tracks: [])
        let best = [String(format: "t%04d.flac", count - 1)] + (0..<(ReportData.readableMembers - 1)).map { String(format: "t%04d.flac", $0) }
        for format in [ReportFormat.html, .md] {
            let text = format.render(big)
            let listed = members.map(\.path).filter { text.contains($0) }
            XCTAssertEqual(Set(listed), Set(best), "\(format)")
            XCTAssertTrue(text.contains("… and 50 more with lower scores"), "\(format)")
        }
        XCTAssertEqual(ReportFormat.csv.render(big).components(separatedBy: "\r\n").filter { $0.hasPrefix("Big,") }.count, count)
        XCTAssertFalse(ReportFormat.md.render(data).contains("more with lower scores"))
    }

    func testHTMLIsSelfContainedWithChartsAndEscaping() {
        let html = ReportFormat.html.render(data)
        XCTAssertEqual(html.components(separatedBy: "<svg").count - 1, 5, "four charts and the map")
        XCTAssertEqual(html.components(separatedBy: "<circle ").count - 1, 60, "a dot per track on the map")
        XCTAssertTrue(html.contains("Soft Sparse Minor (25)") && html.contains("in no cluster"), "the map's legend")
        XCTAssertFalse(html.contains("<script"))
        // Self-contained: the only address in the page is the SVG namespace, once per chart.
        let addresses = html.components(separatedBy: "http").count - 1
        XCTAssertEqual(addresses, html.components(separatedBy: "xmlns=\"http://www.w3.org/2000/svg\"").count - 1)
        XCTAssertEqual(addresses, 5)
        XCTAssertFalse(html.contains("src=\"http"))
        XCTAssertTrue(html.contains("genre &lt;K-Pop&gt; &amp; more"))
        XCTAssertTrue(html.contains("a/사랑.mp3"))
        XCTAssertTrue(html.contains("1970s"))
    }

    func testHistogramBuckets() {
        let h = ReportData.histogram([61, 69, 70, 125, 129.9], width: 10)
        XCTAssertEqual(h.first?.start, 60)
        XCTAssertEqual(h.first?.count, 2)
        XCTAssertEqual(h.last?.start, 120)
        XCTAssertEqual(h.last?.count, 2)
        XCTAssertEqual(h.reduce(0) { $0 + $1.count }, 5)
    }

    /// Renders the HTML in a real headless browser (Debian's chromium) and checks the screenshot shows the
    /// charts: the bar colours of the four charts appear in the picture.
    func testHTMLRendersInAHeadlessBrowser() throws {
        guard let browser = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else {
            throw XCTSkip("chromium is not installed (scripts/test.sh installs it)")
        }
        let dir = NSTemporaryDirectory() + "report-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ReportFormat.html.render(data).write(toFile: dir + "/report.html", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,1700",
                             "--screenshot=\(dir)/shot.png", "file://\(dir)/report.html"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.environment = ["HOME": dir, "PATH": "/usr/bin:/bin"]
        try process.run()
        process.waitUntilExit()
        let png = try Data(contentsOf: URL(fileURLWithPath: dir + "/shot.png"))
        XCTAssertGreaterThan(png.count, 20_000, "a page with charts is more than a blank screenshot")
        let colours = try PNGColours.count(png: png)
        for (name, rgb) in [("genres", (0x3b, 0x6f, 0xd8)), ("tempo", (0x2f, 0x9e, 0x77)), ("loudness", (0xd8, 0x78, 0x3b)),
                            ("decades", (0x8a, 0x5c, 0xd1))] {
            XCTAssertGreaterThan(colours[rgb.0 << 16 | rgb.1 << 8 | rgb.2] ?? 0, 200, "the \(name) chart's bars are visible")
        }
        // The map: both clusters' dots (30 and 25 of radius 4.5) and the unclustered grey ones.
        for (name, rgb) in [("first cluster", (0xe6, 0x19, 0x4b)), ("second cluster", (0x3c, 0xb4, 0x4b)), ("no cluster", (0xb8, 0xbe, 0xc9))] {
            XCTAssertGreaterThan(colours[rgb.0 << 16 | rgb.1 << 8 | rgb.2] ?? 0, 100, "the map's \(name) dots are visible")
        }
    }
}

/// Tag values and file names are hostile input: no report format may let them run as a formula or as HTML.
final class ReportInjectionTests: XCTestCase {
    let hostile = ReportData(
        title: "Injection", generatedAt: Date(timeIntervalSince1970: 1_700_000_000),
        genres: [CompositeGenre(name: "=HYPERLINK(\"http://x\")", kind: .rule, confidence: 0.9, description: "<b>bold</b>",
                                members: [Membership(path: "+cmd|' /C calc'!A0.mp3", score: 1, explanation: "@SUM(1)"),
                                          Membership(path: "<img src=x onerror=alert(1)>.flac", score: 1,
                                                     explanation: "[click](javascript:alert(1)) -2+3")])],
        tracks: [])

    func testCSVCellsThatLookLikeFormulasAreNeutralised() {
        let csv = ReportFormat.csv.render(hostile)
        let cells = csv.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
        XCTAssertEqual(cells.count, 2)
        for line in cells {
            // Every field, quoted or not, must not begin with a formula character.
            for field in line.split(separator: ",", omittingEmptySubsequences: false) {
                let bare = field.hasPrefix("\"") ? field.dropFirst() : field[...]
                XCTAssertFalse(bare.first.map { "=+-@".contains($0) } ?? false, "\(field) in \(line)")
            }
        }
        XCTAssertTrue(csv.contains("'=HYPERLINK"), csv)
        XCTAssertTrue(csv.contains("'+cmd"), csv)
        XCTAssertTrue(csv.contains("'@SUM(1)"), csv)
    }

    func testMarkdownPassesNoHTMLOrLinksThrough() {
        let md = ReportFormat.md.render(hostile)
        // Every < is backslash-escaped: CommonMark then shows it and starts no tag.
        XCTAssertNil(md.range(of: #"(^|[^\\])<"#, options: .regularExpression), md)
        XCTAssertTrue(md.contains("\\<img"), md)
        XCTAssertTrue(md.contains("\\<b>bold\\</b>"), md)
        XCTAssertFalse(md.contains("[click](javascript"), "a link from a tag stays text: \(md)")
        XCTAssertEqual(MarkdownReport.cell("&copy; &#169; &#xA9;"), "\\&copy; \\&\\#169; \\&\\#xA9;", "entities stay text")
        XCTAssertEqual(MarkdownReport.cell("_intro_ *x* a|b `c` ~~d~~ $e$ #"), "\\_intro\\_ \\*x\\* a\\|b \\`c\\` \\~\\~d\\~\\~ \\$e\\$ \\#")
    }

    /// Escaped only where markup could start, the text reads as itself in a terminal too: the rule names,
    /// quotes, ampersands and file names of an everyday explanation come through untouched.
    func testMarkdownLeavesEverydayTextReadable() {
        for text in ["genre R&B from GENRE 'R&B' (an alias)", "rule {decade} {genre}", "Artist/Album/01_intro_take_2.flac",
                     "\"Hello, Goodbye\" – 2010s > 2000s"] {
            XCTAssertEqual(MarkdownReport.cell(text), text)
        }
    }
}
