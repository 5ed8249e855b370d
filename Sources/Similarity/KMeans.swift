import Foundation

/// k-means on a row-major Float matrix: k-means++ seeding from a fixed-seed generator (two runs on the same
/// data give the same clusters), several restarts keeping the lowest inertia, k chosen by silhouette.
///
/// k is chosen by the silhouettes of the points in usable clusters (at least `minClusterSize` points and at
/// most `maxClusterShare` of them), the others counting 0: plain mean silhouette favours splitting off a
/// few outliers, since everything else then looks cohesive beside them. On a library of 33 electronic
/// productions it chose 31 + 2 tracks, which left no shelf at all (one too large, one too small).
/// When every cluster is usable the two measures are the same.
///
/// A large library is clustered through an evenly spaced sample of at most `sampleLimit` rows (the rows
/// are in path order, so the sample does not depend on the order the tracks came in): k is chosen and the
/// centroids found there, then Lloyd iterations over every row refine them. Silhouettes, which cost the
/// square of the points, are computed on the sample only.
public enum KMeans {
    public struct Result: Sendable, Equatable {
        public var k: Int
        public var assignment: [Int]
        /// Row-major, `k × dimensions`.
        public var centroids: [Float]
        /// Mean silhouette (−1...1) of each cluster's sampled members; the mean over the sample picks k.
        public var clusterSilhouettes: [Double]
        public var meanSilhouette: Double
    }

    public static func best(_ points: [Float], dimensions: Int, ks: ClosedRange<Int>, restarts: Int = 8,
                            seed: UInt64 = 0x5eed, sampleLimit: Int = 2000,
                            minClusterSize: Int = 1, maxClusterShare: Double = 1) -> Result? {
        let n = points.count / dimensions
        let step = max(1, (n + sampleLimit - 1) / sampleLimit)
        let sampleRows = Array(Swift.stride(from: 0, to: n, by: step))
        let sample = step == 1 ? points : sampleRows.flatMap { points[$0 * dimensions..<($0 + 1) * dimensions] }
        var best: (result: Result, score: Double)?
        for k in ks where sampleRows.count >= 2 * k {
            let r = cluster(sample, dimensions: dimensions, k: k, restarts: restarts, seed: seed &+ UInt64(k))
            let score = usableSilhouette(r, points: sampleRows.count, minSize: minClusterSize, maxShare: maxClusterShare)
            if best == nil || score > best!.score + 1e-12 { best = (r, score) }
        }
        guard var result = best?.result else { return nil }
        var centroids = result.centroids
        guard step > 1 else { return result }
        // Refine on every row, then score the refined clusters on the sample.
        var assignment = [Int](repeating: -1, count: n)
        lloyd(points, dimensions: dimensions, centroids: &centroids, assignment: &assignment, iterations: 30)
        let sampleAssignment = sampleRows.map { assignment[$0] }
        let s = silhouettes(sample, dimensions: dimensions, sampleAssignment, k: result.k)
        result.assignment = assignment
        result.centroids = centroids
        result.clusterSilhouettes = perCluster(s, sampleAssignment, k: result.k)
        result.meanSilhouette = s.reduce(0, +) / Double(max(1, s.count))
        return result
    }

    /// The mean silhouette over all `points`, counting 0 for the members of clusters too small or too large.
    static func usableSilhouette(_ r: Result, points: Int, minSize: Int, maxShare: Double) -> Double {
        var sizes = [Int](repeating: 0, count: r.k)
        for c in r.assignment { sizes[c] += 1 }
        var sum = 0.0
        for c in 0..<r.k where sizes[c] >= minSize && Double(sizes[c]) <= maxShare * Double(points) {
            sum += r.clusterSilhouettes[c] * Double(sizes[c])
        }
        return sum / Double(max(1, points))
    }

    public static func cluster(_ points: [Float], dimensions: Int, k: Int, restarts: Int, seed: UInt64) -> Result {
        var rng = SeededRandom(seed: seed)
        var bestAssignment: [Int] = []
        var bestCentroids: [Float] = []
        var bestInertia = Double.infinity
        for _ in 0..<max(1, restarts) {
            var centroids = seedPlusPlus(points, dimensions: dimensions, k: k, rng: &rng)
            var assignment = [Int](repeating: -1, count: points.count / dimensions)
            let inertia = lloyd(points, dimensions: dimensions, centroids: &centroids, assignment: &assignment, iterations: 100)
            if inertia < bestInertia - 1e-9 {
                bestInertia = inertia
                bestAssignment = assignment
                bestCentroids = centroids
            }
        }
        let s = silhouettes(points, dimensions: dimensions, bestAssignment, k: k)
        return Result(k: k, assignment: bestAssignment, centroids: bestCentroids,
                      clusterSilhouettes: perCluster(s, bestAssignment, k: k),
                      meanSilhouette: s.isEmpty ? -1 : s.reduce(0, +) / Double(s.count))
    }

    /// Lloyd's iterations until no row moves; returns the inertia (sum of squared distances to centroids).
    @discardableResult
    static func lloyd(_ points: [Float], dimensions d: Int, centroids: inout [Float], assignment: inout [Int], iterations: Int) -> Double {
        let n = points.count / d, k = centroids.count / d
        var inertia = 0.0
        for _ in 0..<iterations {
            var changed = false
            inertia = 0
            for i in 0..<n {
                let (c, dist) = nearest(points, row: i, centroids, dimensions: d)
                inertia += Double(dist)
                if c != assignment[i] { assignment[i] = c; changed = true }
            }
            var sums = [Double](repeating: 0, count: k * d), counts = [Int](repeating: 0, count: k)
            for i in 0..<n {
                let c = assignment[i]
                counts[c] += 1
                for j in 0..<d { sums[c * d + j] += Double(points[i * d + j]) }
            }
            for c in 0..<k where counts[c] > 0 {
                for j in 0..<d { centroids[c * d + j] = Float(sums[c * d + j] / Double(counts[c])) }
            }
            if !changed { break }
        }
        return inertia
    }

    static func seedPlusPlus(_ points: [Float], dimensions d: Int, k: Int, rng: inout SeededRandom) -> [Float] {
        let n = points.count / d
        var chosen = [Int(rng.next() % UInt64(n))]
        var nearestSquared = (0..<n).map { distance2(points, $0, points, chosen[0], dimensions: d) }
        while chosen.count < k {
            let total = nearestSquared.reduce(0.0) { $0 + Double($1) }
            var pick = n - 1
            if total > 0 {
                var target = rng.unit() * total
                for (i, w) in nearestSquared.enumerated() {
                    target -= Double(w)
                    if target <= 0 { pick = i; break }
                }
            } else {
                pick = Int(rng.next() % UInt64(n))
            }
            chosen.append(pick)
            for i in 0..<n { nearestSquared[i] = min(nearestSquared[i], distance2(points, i, points, pick, dimensions: d)) }
        }
        return chosen.flatMap { points[$0 * d..<($0 + 1) * d] }
    }

    static func nearest(_ points: [Float], row: Int, _ centroids: [Float], dimensions d: Int) -> (Int, Float) {
        var best = 0, bestD = Float.infinity
        for c in 0..<(centroids.count / d) {
            let dist = distance2(points, row, centroids, c, dimensions: d)
            if dist < bestD { bestD = dist; best = c }
        }
        return (best, bestD)
    }

    @inline(__always)
    public static func distance2(_ a: [Float], _ i: Int, _ b: [Float], _ j: Int, dimensions d: Int) -> Float {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in squaredRowDistance(x, i, y, j, d) } }
    }

    /// Silhouettes of every point; each pair's distance is computed once (the matrix is symmetric).
    static func silhouettes(_ points: [Float], dimensions d: Int, _ assignment: [Int], k: Int) -> [Double] {
        let n = points.count / d
        var sums = [Double](repeating: 0, count: n * k)
        points.withUnsafeBufferPointer { p in
            for i in 0..<n {
                let ci = assignment[i]
                for j in (i + 1)..<max(i + 1, n) {
                    let dist = Double(squaredRowDistance(p, i, p, j, d).squareRoot())
                    sums[i * k + assignment[j]] += dist
                    sums[j * k + ci] += dist
                }
            }
        }
        var counts = [Int](repeating: 0, count: k)
        for c in assignment { counts[c] += 1 }
        return (0..<n).map { i in
            let own = assignment[i]
            guard counts[own] > 1 else { return 0 }
            let a = sums[i * k + own] / Double(counts[own] - 1)
            var b = Double.infinity
            for c in 0..<k where c != own && counts[c] > 0 { b = min(b, sums[i * k + c] / Double(counts[c])) }
            if !b.isFinite { b = 0 }
            let m = max(a, b)
            return m > 0 ? (b - a) / m : 0
        }
    }

    static func perCluster(_ s: [Double], _ assignment: [Int], k: Int) -> [Double] {
        (0..<k).map { c in
            let members = s.indices.filter { assignment[$0] == c }
            return members.isEmpty ? 0 : members.reduce(0) { $0 + s[$1] } / Double(members.count)
        }
    }
}

/// Squared Euclidean distance between row `i` of `a` and row `j` of `b` (row-major, `d` columns): the one
/// kernel behind k-means, silhouettes, `similar`'s scan and the sonic space's distances.
@inline(__always)
func squaredRowDistance(_ a: UnsafeBufferPointer<Float>, _ i: Int, _ b: UnsafeBufferPointer<Float>, _ j: Int, _ d: Int) -> Float {
    var s: Float = 0
    let p = i * d, q = j * d
    for t in 0..<d { let v = a[p + t] - b[q + t]; s += v * v }
    return s
}
