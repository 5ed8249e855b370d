@testable import Analysis
import Foundation
import TestSupport
import XCTest

/// The Swift network against scripts/musicnn_reference.py, an independent NumPy rendering of MusiCNN, on weights
/// made by a formula (`MusicnnFormulaWeights`). The expected values are the reference's output for the same
/// weights and patch.
final class MusicnnNetworkTests: XCTestCase {
    static func patch() -> [Float] {
        var out: [Float] = []
        for t in 0..<MusicnnNetwork.frames {
            for f in 0..<MusicnnNetwork.bands {
                let (time, band) = (Double(t), Double(f))
                out.append(Float(1.5 + sin(0.05 * time * (band + 1) + 0.1 * band)))
            }
        }
        return out
    }

    func testTheNetworkGivesTheReferencesOutputs() throws {
        let (tags, embedding) = try MusicnnNetwork(weights: MusicnnFormulaWeights.make()).run(Self.patch())
        XCTAssertEqual(tags.count, 50)
        XCTAssertEqual(embedding.count, 200)
        for (i, expected) in [(0, 0.4928187), (7, 0.4755576), (23, 0.4976448), (49, 0.5129361)] {
            XCTAssertEqual(Double(tags[i]), expected, accuracy: 1e-4, "tag \(i)")
        }
        for (i, expected) in [(0, 0.04678725), (1, 0.08003057), (17, 0.006682326), (50, 0.1979733), (99, 0.05876725),
                              (150, -0.0661179), (198, 0.05895629), (199, 0.07074391)] {
            XCTAssertEqual(Double(embedding[i]), expected, accuracy: max(1e-3 * abs(expected), 1e-6), "embedding \(i)")
        }
    }

    func testAWeightFileRoundTripsAndAWrongShapeIsNamed() throws {
        var bytes = Array("SPNWGT01".utf8) + [1, 0, 0, 0]
        let name = Array("dense/bias".utf8)
        bytes += [UInt8(name.count), 0] + name + [1, 2, 0, 0, 0]
        for v in [Float(1.5), -2] { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes += $0 } }
        let weights = try NetworkWeights(data: Data(bytes), named: "test")
        XCTAssertEqual(weights.tensors["dense/bias"]?.values, [1.5, -2])
        XCTAssertThrowsError(try weights.tensor("dense/bias", [200])) { XCTAssertTrue("\($0)".contains("shape [2]")) }
        XCTAssertThrowsError(try NetworkWeights(data: Data(bytes.dropLast(3)), named: "cut")) { XCTAssertTrue("\($0)".contains("cut short")) }
        XCTAssertThrowsError(try NetworkWeights(data: Data("not weights".utf8), named: "x")) { XCTAssertTrue("\($0)".contains("not a Spindle weight file")) }
    }
}
