@testable import Analysis
import Foundation
import XCTest

/// The Swift network against scripts/musicnn_reference.py, an independent NumPy rendering of MusiCNN, on weights
/// made by a formula (the real ones are fetched at install, never in tests) with MusiCNN's names and shapes. The
/// expected values are the reference's output for the same weights and patch.
final class MusicnnNetworkTests: XCTestCase {
    static let shapes: [String: [Int]] = {
        var s: [String: [Int]] = [:]
        for (i, n) in [1, 204, 204, 51, 51, 51, 64, 64, 64, 1506, 200].enumerated() {
            for part in ["beta", "gamma", "moving_mean", "moving_variance"] {
                s["batch_normalization" + (i == 0 ? "" : "_\(i)") + "/" + part] = [n]
            }
        }
        for (i, k) in [[7, 38, 1, 204], [7, 67, 1, 204], [128, 1, 1, 51], [64, 1, 1, 51], [32, 1, 1, 51],
                       [7, 561, 1, 64], [7, 64, 1, 64], [7, 64, 1, 64]].enumerated() {
            let p = i == 0 ? "conv2d/" : "conv2d_\(i)/"
            s[p + "kernel"] = k
            s[p + "bias"] = [k[3]]
        }
        s["dense/kernel"] = [1506, 200]; s["dense/bias"] = [200]; s["dense_1/kernel"] = [200, 50]; s["dense_1/bias"] = [50]
        return s
    }()

    /// The k-th tensor (by name) at element i, as the reference's test generator has it.
    static func value(_ name: String, _ k: Int, _ i: Int, _ shape: [Int]) -> Float {
        let (k, i) = (Double(k), Double(i))
        if name.hasSuffix("moving_variance") { return Float(0.5 + 0.25 * (1 + sin(0.37 * i + k))) }
        if name.hasSuffix("gamma") { return Float(1 + 0.1 * sin(0.11 * i + k)) }
        if name.hasSuffix("kernel") { return Float(sin(0.7 * i + 0.3 * k) / Double(shape.reduce(1, *) / shape.last!).squareRoot()) }
        return Float(0.1 * sin(0.7 * i + 0.3 * k))
    }

    static func formulaWeights() -> NetworkWeights {
        var tensors: [String: NetworkWeights.Tensor] = [:]
        for (k, name) in shapes.keys.sorted().enumerated() {
            let shape = shapes[name]!
            tensors[name] = NetworkWeights.Tensor(shape: shape, values: (0..<shape.reduce(1, *)).map { value(name, k, $0, shape) })
        }
        return NetworkWeights(tensors: tensors)
    }

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
        let (tags, embedding) = try MusicnnNetwork(weights: Self.formulaWeights()).run(Self.patch())
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
