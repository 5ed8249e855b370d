/// The median of a fixed number of values by a comparison network, eight lanes at a time: Batcher's odd–even
/// merge sort for the next power of two, cut to `size` inputs (comparators reaching past them never move a
/// value when the missing inputs are +∞) and pruned backwards to the comparators the middle output depends
/// on. Branch-free min/max on SIMD vectors, where a per-lane selection would branch on every comparison:
/// the harmonic/percussive split takes two medians for every spectral bin of every frame.
struct MedianNetwork: Sendable {
    let size: Int
    let comparators: [(Int, Int)]

    init(size: Int) {
        precondition(size >= 1 && size % 2 == 1, "a median network takes an odd number of inputs")
        self.size = size
        var n = 1
        while n < size { n <<= 1 }
        var all: [(Int, Int)] = []
        var p = 1
        while p < n {
            var k = p
            while k >= 1 {
                var j = k % p
                while j <= n - 1 - k {
                    for i in 0...min(k - 1, n - j - k - 1) where (i + j) / (2 * p) == (i + j + k) / (2 * p) {
                        all.append((i + j, i + j + k))
                    }
                    j += 2 * k
                }
                k /= 2
            }
            p *= 2
        }
        var live = Set([size / 2])
        var kept: [(Int, Int)] = []
        for c in all.reversed() where c.1 < size && (live.contains(c.0) || live.contains(c.1)) {
            kept.append(c)
            live.insert(c.0)
            live.insert(c.1)
        }
        comparators = kept.reversed()
    }

    /// The lane-wise median of `values[0..<size]`, which it reorders.
    @inline(__always)
    func median(_ values: UnsafeMutablePointer<SIMD8<Float>>) -> SIMD8<Float> {
        for (a, b) in comparators {
            var low = values[a], high = values[b]
            let swap = high .< low
            low.replace(with: values[b], where: swap)
            high.replace(with: values[a], where: swap)
            values[a] = low
            values[b] = high
        }
        return values[size / 2]
    }
}
