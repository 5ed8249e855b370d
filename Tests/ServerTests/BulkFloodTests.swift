import Foundation
@testable import Server
import TestSupport
import XCTest

/// Attack review, medium 4: `/smart-dj/bulk-profiles?paths=` with 3,999 fragments looked each one up, and the
/// joins of up to nine after it, before answering 413: 0.5 s of work a request, and four such clients cut
/// everyone's `/smart-dj/profile` from 2,075 to 5 requests a second. The lookups are counted here, not timed.
final class BulkFloodTests: XCTestCase {
    final class Lookups: @unchecked Sendable {
        var count = 0
        let files: Set<String>
        init(files: Set<String> = []) { self.files = files }
        func isFile(_ path: String) -> Bool { count += 1; return files.contains(path) }
    }

    func testAListOfMoreFragmentsThanTwiceTheLimitIsRefusedBeforeAnyLookup() {
        let lookups = Lookups()
        let list = Array(repeating: "x", count: 3_999).joined(separator: ",")
        XCTAssertThrowsError(try ProfileRoutes.commaSeparated([list], limit: 1000, isFile: lookups.isFile)) { error in
            XCTAssertEqual((error as? APIError)?.status, .contentTooLarge)
        }
        XCTAssertEqual(lookups.count, 0)
    }

    func testEachFragmentCostsAtMostTwoLookupsAndNamesWithCommasAreStillJoined() throws {
        let lookups = Lookups(files: ["Crosby, Stills & Nash/Album/01 Song.flac", "B/Hello, Goodbye.mp3"])
        let hostile = (0..<1_990).map { $0 % 3 == 0 ? "junk \($0)" : "Nowhere/\($0).flac" }
        let list = (["Crosby", " Stills & Nash/Album/01 Song.flac", "B/Hello", " Goodbye.mp3"] + hostile).joined(separator: ",")
        let paths = try ProfileRoutes.commaSeparated([list], limit: 1000, isFile: lookups.isFile)
        XCTAssertEqual(Array(paths.prefix(2)), ["Crosby, Stills & Nash/Album/01 Song.flac", "B/Hello, Goodbye.mp3"])
        XCTAssertEqual(paths.count, 2 + hostile.count)
        XCTAssertLessThanOrEqual(lookups.count, 2 * (hostile.count + 4))
        // A fragment that names no audio file is not looked up alone.
        let names = Lookups()
        _ = try ProfileRoutes.commaSeparated([Array(repeating: "x", count: 1_999).joined(separator: ",")], limit: 1000,
                                             isFile: names.isFile)
        XCTAssertEqual(names.count, 0)
    }

    func testTheFloodGets413OverHTTP() throws {
        let f = try ServerFixture.get()
        try withServer(database: f.db, library: f.library) { port in
            let list = Array(repeating: "x", count: 3_999).joined(separator: ",")
            let response = try RawHTTPClient.get(port: port, "/smart-dj/bulk-profiles?paths=" + list)
            XCTAssertEqual(response.status, 413, response.text)
        }
    }
}
