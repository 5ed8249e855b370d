import Foundation

/// "More like this": the rows nearest to one row, by a full scan of the space. A scan of 100,000 tracks of
/// 57 dimensions is a few million multiply-adds, faster than any index would pay for itself at this size.
public struct Neighbour: Sendable, Equatable {
    public var row: Int
    public var distance: Double
}

extension SonicSpace {
    /// The `n` nearest rows to `row`, nearest first; ties go to the earlier path, so the answer does not
    /// depend on anything but the library. `excluding` rows are skipped (the seed itself always is).
    public func nearest(to row: Int, count n: Int, excluding: Set<Int> = []) -> [Neighbour] {
        guard n > 0 else { return [] }
        let d = dimensions
        var best: [(Float, Int)] = []   // sorted ascending, at most n
        best.reserveCapacity(n + 1)
        values.withUnsafeBufferPointer { v in
            for i in 0..<count where i != row && !excluding.contains(i) {
                let s = squaredRowDistance(v, i, v, row, d)
                if best.count == n, let worst = best.last, s > worst.0 || (s == worst.0 && i > worst.1) { continue }
                var lo = 0, hi = best.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if best[mid].0 < s || (best[mid].0 == s && best[mid].1 < i) { lo = mid + 1 } else { hi = mid }
                }
                best.insert((s, i), at: lo)
                if best.count > n { best.removeLast() }
            }
        }
        return best.map { Neighbour(row: $0.1, distance: Double($0.0).squareRoot()) }
    }
}
