@testable import Analysis
import TestSupport
import XCTest

/// The vector kernels must give what the scalar loops they replace give: the key and the timbre read them on
/// every spectrum.
final class VectorOpsTests: XCTestCase {
    func testVectorLogIsTheScalarLogLaneForLane() {
        var rng = SplitMix(seed: 11)
        for _ in 0..<200 {
            // Power-spectrum values span many decades: 1e-20 up to 1e8.
            let x = SIMD8<Float>((0..<8).map { _ in Float(pow(10, rng.unit() * 28 - 20)) })
            let vector = VectorOps.fastLog(x)
            for lane in 0..<8 {
                XCTAssertEqual(vector[lane], VectorOps.fastLog(x[lane]), "lane \(lane) of \(x)")
                XCTAssertEqual(Double(vector[lane]), log(Double(x[lane])), accuracy: 1e-4)
            }
        }
    }

    /// The key maps spectral peaks to 10-cent bins through this log: the error must stay well inside a bin
    /// at every place in the octave (a cubic once bent pitches by up to 16 cents).
    func testLogAsAPitchIsWithinAFifthOfACentAcrossTheOctave() {
        var worst = 0.0
        for i in 0..<12_000 {
            let x = Float(440 * pow(2, Double(i) / 12_000))
            let cents = Double(VectorOps.fastLog(x)) / M_LN2 * 1200
            worst = max(worst, abs(cents - log2(Double(x)) * 1200))
        }
        XCTAssertLessThan(worst, 0.2)
    }

    /// The tempo's autocorrelation and the backbeat's cross-correlation sum up to 100,000 products of an
    /// onset envelope: the blocked Float lanes must keep a Double sum's precision at every length.
    func testDotIsThePlainDoubleSumAtEveryLength() {
        var rng = SplitMix(seed: 13)
        for count in [0, 1, 7, 8, 9, 511, 512, 513, 4097, 100_003] {
            let a = (0..<count).map { _ in Float(rng.unit() * 2 - 1) * 40 }
            let b = (0..<count).map { _ in Float(rng.unit()) * 40 }
            let plain = zip(a, b).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
            let magnitude = zip(a, b).reduce(0.0) { $0 + abs(Double($1.0) * Double($1.1)) }
            let dot = a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in VectorOps.dot(x.baseAddress!, y.baseAddress!, count) } }
            XCTAssertEqual(dot, plain, accuracy: max(1e-9, magnitude * 1e-6), "\(count) values")
        }
    }

    func testSumOfLogsAndMaxAndSumMatchPlainLoopsAtEveryLength() {
        var rng = SplitMix(seed: 12)
        for count in [1, 7, 8, 9, 63, 1281] {
            let values = (0..<count).map { _ in Float(rng.unit()) * 1000 }
            values.withUnsafeBufferPointer { p in
                let floor: Float = 1e-20
                let plain = values.reduce(0.0) { $0 + Double(VectorOps.fastLog($1 + floor)) }
                XCTAssertEqual(VectorOps.sumOfLogs(p.baseAddress!, count, floor: floor), plain,
                               accuracy: 1e-9 * max(1, abs(plain)), "count \(count)")
                let (top, total) = VectorOps.maxAndSum(p.baseAddress!, count)
                XCTAssertEqual(top, values.max()!, "count \(count)")
                XCTAssertEqual(Double(total), values.reduce(0.0) { $0 + Double($1) }, accuracy: 1e-5 * Double(total))
            }
        }
    }
}
