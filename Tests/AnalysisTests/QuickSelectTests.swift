@testable import Analysis
import TestSupport
import XCTest

/// The timbre contrast sums the smallest and largest fifth of a band's bins in sorted order; selecting them
/// must give exactly the runs a full sort gives, duplicates and all.
final class QuickSelectTests: XCTestCase {
    func testExtremesEqualAFullSortsEnds() {
        var rng = SplitMix(seed: 5)
        for count in [2, 3, 5, 10, 37, 64, 215] {
            for trial in 0..<20 {
                // Few distinct values in half the trials, so ties are common.
                let values = (0..<count).map { _ in
                    trial % 2 == 0 ? Float(Int(rng.unit() * 4)) : Float(rng.unit())
                }
                let sorted = values.sorted()
                for n in 1...(count / 2) {
                    var v = values
                    v.withUnsafeMutableBufferPointer { QuickSelect.sortExtremes($0, n: n) }
                    XCTAssertEqual(Array(v[0..<n]), Array(sorted[0..<n]), "count \(count) n \(n)")
                    XCTAssertEqual(Array(v[(count - n)...]), Array(sorted[(count - n)...]), "count \(count) n \(n)")
                    XCTAssertEqual(v.sorted(), sorted, "a permutation of the input")
                }
            }
        }
    }

    func testSelectPlacesTheKthValue() {
        let values: [Float] = [5, 1, 4, 1, 5, 9, 2, 6, 5, 3]
        for k in values.indices {
            var v = values
            v.withUnsafeMutableBufferPointer { QuickSelect.select($0, 0..<$0.count, k: k) }
            XCTAssertEqual(v[k], values.sorted()[k])
            XCTAssertTrue(v[..<k].allSatisfy { $0 <= v[k] } && v[(k + 1)...].allSatisfy { $0 >= v[k] })
        }
    }
}
