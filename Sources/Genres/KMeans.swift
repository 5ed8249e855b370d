import Foundation

/// k-means on standardised vectors: k-means++ seeding from a fixed-seed generator (two runs on the same
/// data give the same clusters), several restarts keeping the lowest inertia, k chosen by silhouette.
public enum KMeans {
    public struct Result: Sendable, Equatable {
        public var k: Int
        public var assignment: [Int]
        public var centroids: [[Double]]
        /// Silhouette of each point (−1...1); the mean picks k.
        public var silhouettes: [Double]
        public var meanSilhouette: Double
    }

    /// Clusters `points` for every k in `ks` and returns the best by mean silhouette (nil when fewer points
    /// than 2 × the smallest k).
    public static func best(_ points: [[Double]], ks: ClosedRange<Int>, restarts: Int = 8, seed: UInt64 = 0x5eed) -> Result? {
        var best: Result?
        for k in ks where points.count >= 2 * k {
            let r = cluster(points, k: k, restarts: restarts, seed: seed &+ UInt64(k))
            if best == nil || r.meanSilhouette > best!.meanSilhouette + 1e-12 { best = r }
        }
        return best
    }

    public static func cluster(_ points: [[Double]], k: Int, restarts: Int, seed: UInt64) -> Result {
        var rng = Generator(seed: seed)
        var bestAssignment: [Int] = []
        var bestCentroids: [[Double]] = []
        var bestInertia = Double.infinity
        for _ in 0..<max(1, restarts) {
            var centroids = seedPlusPlus(points, k: k, rng: &rng)
            var assignment = [Int](repeating: -1, count: points.count)
            for _ in 0..<100 {
                var changed = false
                for (i, p) in points.enumerated() {
                    let c = nearest(p, centroids)
                    if c != assignment[i] { assignment[i] = c; changed = true }
                }
                centroids = centroids.indices.map { c in
                    let members = points.indices.filter { assignment[$0] == c }
                    guard !members.isEmpty else { return centroids[c] }
                    return (0..<points[0].count).map { d in members.reduce(0) { $0 + points[$1][d] } / Double(members.count) }
                }
                if !changed { break }
            }
            let inertia = points.indices.reduce(0) { $0 + distance2(points[$1], centroids[assignment[$1]]) }
            if inertia < bestInertia - 1e-12 {
                bestInertia = inertia
                bestAssignment = assignment
                bestCentroids = centroids
            }
        }
        let s = silhouettes(points, bestAssignment, k: k)
        return Result(k: k, assignment: bestAssignment, centroids: bestCentroids, silhouettes: s,
                      meanSilhouette: s.isEmpty ? -1 : s.reduce(0, +) / Double(s.count))
    }

    static func seedPlusPlus(_ points: [[Double]], k: Int, rng: inout Generator) -> [[Double]] {
        var centroids = [points[Int(rng.next() % UInt64(points.count))]]
        while centroids.count < k {
            let d = points.map { p in centroids.map { distance2(p, $0) }.min()! }
            let total = d.reduce(0, +)
            guard total > 0 else { centroids.append(points[Int(rng.next() % UInt64(points.count))]); continue }
            var target = rng.unit() * total
            var chosen = points.count - 1
            for (i, w) in d.enumerated() {
                target -= w
                if target <= 0 { chosen = i; break }
            }
            centroids.append(points[chosen])
        }
        return centroids
    }

    static func nearest(_ p: [Double], _ centroids: [[Double]]) -> Int {
        var best = 0, bestD = Double.infinity
        for (i, c) in centroids.enumerated() {
            let d = distance2(p, c)
            if d < bestD { bestD = d; best = i }
        }
        return best
    }

    static func distance2(_ a: [Double], _ b: [Double]) -> Double {
        var s = 0.0
        for i in a.indices { let d = a[i] - b[i]; s += d * d }
        return s
    }

    /// Silhouettes; above 2,000 points they are computed against an evenly spaced sample (deterministic).
    static func silhouettes(_ points: [[Double]], _ assignment: [Int], k: Int) -> [Double] {
        let stride = max(1, points.count / 2000)
        let sample = Array(Swift.stride(from: 0, to: points.count, by: stride))
        return points.indices.map { i in
            var sums = [Double](repeating: 0, count: k), counts = [Int](repeating: 0, count: k)
            for j in sample where j != i {
                sums[assignment[j]] += distance2(points[i], points[j]).squareRoot()
                counts[assignment[j]] += 1
            }
            let own = assignment[i]
            guard counts[own] > 0 else { return 0 }
            let a = sums[own] / Double(counts[own])
            let b = (0..<k).filter { $0 != own && counts[$0] > 0 }.map { sums[$0] / Double(counts[$0]) }.min() ?? 0
            let m = max(a, b)
            return m > 0 ? (b - a) / m : 0
        }
    }

    /// SplitMix64: small, fast and the same everywhere.
    struct Generator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E3779B97F4A7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
            z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }
}
