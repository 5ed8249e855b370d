/// Small kernels written on SIMD vectors with masked updates: Swift's scalar `max` and strict
/// floating-point sums keep the optimiser from vectorising plain loops, and these run on every sample.
enum VectorOps {
    /// Natural log of x > 0 to about 1e-4 absolute: exponent from the bits, a cubic for the mantissa.
    /// The onset envelope takes thousands of logs per second, where libm's precision buys nothing.
    @inline(__always)
    static func fastLog(_ x: Float) -> Float {
        let bits = x.bitPattern
        let exponent = Float(Int32(bitPattern: (bits >> 23) & 0xff) - 127)
        let m = Float(bitPattern: (bits & 0x007f_ffff) | 0x3f80_0000)   // mantissa in [1, 2)
        let t = m - 1
        // log2(1 + t) on [0, 1): minimax-style cubic.
        let log2m = t * (1.4425449 + t * (-0.7181452 + t * 0.2754526))
        return (exponent + log2m) * 0.6931472
    }

    /// Lane-wise max |x| over the whole 8-float vectors of `count` samples (the tail is left to the caller).
    @inline(__always)
    private static func laneMaxAbs(_ p: UnsafePointer<Float>, _ count: Int) -> SIMD8<Float> {
        let raw = UnsafeRawPointer(p)
        var acc = SIMD8<Float>()
        var v = 0
        while v < count / 8 {
            let x = raw.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self)
            let a = x.replacing(with: -x, where: x .< 0)
            acc.replace(with: a, where: a .> acc)
            v += 1
        }
        return acc
    }

    /// max |p[i]| for i in 0..<count (0 for an empty range).
    @inline(__always)
    static func maxAbs(_ p: UnsafePointer<Float>, _ count: Int) -> Float {
        let acc = laneMaxAbs(p, count)
        // Reduce without the generic (slow) SIMD.max().
        var m: Float = 0
        for lane in 0..<8 where acc[lane] > m { m = acc[lane] }
        for i in (count / 8 * 8)..<count where abs(p[i]) > m { m = abs(p[i]) }
        return m
    }

    /// max |x| per channel of `count` interleaved samples, written to `peaks` (one per channel).
    @inline(__always)
    static func maxAbsPerChannel(_ p: UnsafePointer<Float>, _ count: Int, channels: Int,
                                 into peaks: UnsafeMutablePointer<Float>) {
        for c in 0..<channels { peaks[c] = 0 }
        // With 1, 2, 4 or 8 channels, lane k of an 8-wide vector always holds channel k % channels.
        let vectorised = 8 % channels == 0
        if vectorised {
            let acc = laneMaxAbs(p, count)
            for lane in 0..<8 where acc[lane] > peaks[lane % channels] { peaks[lane % channels] = acc[lane] }
        }
        for i in (vectorised ? count / 8 * 8 : 0)..<count where abs(p[i]) > peaks[i % channels] {
            peaks[i % channels] = abs(p[i])
        }
    }

    /// Σ p[i]² per channel of `count` interleaved samples, added into `sums` (one per channel).
    @inline(__always)
    static func addSquares(_ p: UnsafePointer<Float>, _ count: Int, channels: Int, into sums: inout [Float]) {
        guard 8 % channels == 0 else {
            for i in 0..<count { sums[i % channels] += p[i] * p[i] }
            return
        }
        // With 1, 2, 4 or 8 channels, lane k of an 8-wide vector always holds channel k % channels.
        let raw = UnsafeRawPointer(p)
        var acc = SIMD8<Float>()
        let vectors = count / 8
        var v = 0
        while v < vectors {
            let x = raw.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self)
            acc += x * x
            v += 1
        }
        for lane in 0..<8 { sums[lane % channels] += acc[lane] }
        var i = vectors * 8
        while i < count {
            sums[i % channels] += p[i] * p[i]
            i += 1
        }
    }
}
