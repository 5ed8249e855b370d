import Foundation
import Pipeline
import XCTest

/// The frames encoder writes JSON by hand from a table: every byte value, a short last frame and no frames
/// at all must still parse, with each level within rounding of byte/255.
final class FramesJSONTests: XCTestCase {
    func encode(bands: Int, data: [UInt8]) -> [UInt8] {
        data.withUnsafeBufferPointer { FramesJSON.encode(bands: bands, data: $0) }
    }

    func parse(_ bytes: [UInt8]) throws -> [[Double]] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [[Double]], String(decoding: bytes, as: UTF8.self))
    }

    func testEveryByteValueRoundTripsInFramesOfTheGivenWidth() throws {
        let data = (0..<512).map { UInt8($0 % 256) }
        let frames = try parse(encode(bands: 32, data: data))
        XCTAssertEqual(frames.count, 16)
        XCTAssertTrue(frames.allSatisfy { $0.count == 32 })
        for (i, level) in frames.joined().enumerated() {
            XCTAssertEqual(level, Double(data[i]) / 255, accuracy: 0.00005, "byte \(data[i])")
        }
        XCTAssertEqual(frames[0][0], 0)
        XCTAssertEqual(frames[7][31], 1)
    }

    /// Pieces of whole frames, each encoded on its own and joined, give the text of all of them at once.
    func testFramesWrittenAPieceAtATimeGiveTheTextOfTheWhole() throws {
        let data = (0..<1000).map { UInt8(($0 * 37) % 256) }
        for (bands, piece) in [(4, 4), (4, 40), (4, 996), (4, 1000), (4, 4000), (32, 64), (7, 14)] {
            var pieces = FramesJSON.Pieces()
            var text: [UInt8] = []
            data.withUnsafeBufferPointer { all in
                for offset in stride(from: 0, to: all.count, by: piece) {
                    text += pieces.piece(bands: bands, data: UnsafeBufferPointer(rebasing: all[offset..<min(all.count, offset + piece)]))
                }
            }
            text += pieces.end()
            XCTAssertEqual(String(decoding: text, as: UTF8.self), String(decoding: encode(bands: bands, data: data), as: UTF8.self),
                           "\(bands) bands, pieces of \(piece)")
        }
        var none = FramesJSON.Pieces()
        XCTAssertEqual(none.piece(bands: 32, data: UnsafeBufferPointer(start: nil, count: 0)) + none.end(), Array("[]".utf8))
        XCTAssertEqual(FramesJSON.Pieces.bytes(bands: 32) % 32, 0)
        XCTAssertEqual(FramesJSON.Pieces.bytes(bands: 7) % 7, 0)
    }

    func testAShortLastFrameAndNoFramesStillParse() throws {
        XCTAssertEqual(try parse(encode(bands: 4, data: [255, 0, 51, 102, 204])), [[1, 0, 0.2, 0.4], [0.8]])
        XCTAssertEqual(Array("[]".utf8), encode(bands: 32, data: [UInt8]()))
    }
}
