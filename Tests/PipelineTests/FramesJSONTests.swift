import Foundation
import Pipeline
import XCTest

/// The frames encoder writes JSON by hand from a table: every byte value, a short last frame and no frames
/// at all must still parse, with each level within rounding of byte/255.
final class FramesJSONTests: XCTestCase {
    func parse(_ bytes: [UInt8]) throws -> [[Double]] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [[Double]], String(decoding: bytes, as: UTF8.self))
    }

    func testEveryByteValueRoundTripsInFramesOfTheGivenWidth() throws {
        let data = (0..<512).map { UInt8($0 % 256) }
        let frames = try parse(FramesJSON.encode(bands: 32, data: data))
        XCTAssertEqual(frames.count, 16)
        XCTAssertTrue(frames.allSatisfy { $0.count == 32 })
        for (i, level) in frames.joined().enumerated() {
            XCTAssertEqual(level, Double(data[i]) / 255, accuracy: 0.00005, "byte \(data[i])")
        }
        XCTAssertEqual(frames[0][0], 0)
        XCTAssertEqual(frames[7][31], 1)
    }

    func testAShortLastFrameAndNoFramesStillParse() throws {
        XCTAssertEqual(try parse(FramesJSON.encode(bands: 4, data: [255, 0, 51, 102, 204])), [[1, 0, 0.2, 0.4], [0.8]])
        XCTAssertEqual(Array("[]".utf8), FramesJSON.encode(bands: 32, data: [UInt8]()))
    }
}
