@testable import Server
import XCTest

final class QueryStringTests: XCTestCase {
    func testDecodesPlusAndPercentAndKeepsTheFirstValue() throws {
        let query = try QueryString("relative_path=Caf%C3%A9+Mix%2F01.flac&n=5&n=6&flag")
        XCTAssertEqual(query["relative_path"], "Café Mix/01.flac")
        XCTAssertEqual(try query.integer("n", default: 1, in: 1...10), 5)
        XCTAssertEqual(query["flag"], "")
        XCTAssertNil(query["missing"])
    }

    func testAPathWithAPlusHasBothReadingsTheFormsFirst() throws {
        let query = try QueryString("relative_path=Rock%20+%20Roll.flac&plain=a%2Bb&none=")
        XCTAssertEqual(try query.pathReadings("relative_path"), ["Rock   Roll.flac", "Rock + Roll.flac"])
        XCTAssertEqual(try query.pathReadings("plain"), ["a+b"], "an encoded plus has one reading")
        XCTAssertThrowsError(try query.pathReadings("none"), "empty, as `required`")
    }

    func testRefusesWhatWouldReachTheResolverMangled() {
        for bad in ["p=%ff", "p=%00", "p=%2", "p=%g1", "%ff=1"] {
            XCTAssertThrowsError(try QueryString(bad), bad) { error in
                XCTAssertEqual((error as? APIError)?.status.code, 400, bad)
            }
        }
    }

    func testListenAddresses() throws {
        var options = ServeOptions()
        try options.setListen("0.0.0.0:9000")
        XCTAssertEqual(options.host, "0.0.0.0")
        XCTAssertEqual(options.port, 9000)
        try options.setListen("[::1]:8001")
        XCTAssertEqual(options.host, "::1")
        try options.setListen("8002")
        XCTAssertEqual(options.port, 8002)
        XCTAssertEqual(options.host, "::1", "a port alone keeps the host")
        for bad in ["host:", "host:70000", "[::1]8000", "[::1", "x"] {
            XCTAssertThrowsError(try options.setListen(bad), bad)
        }
    }
}
