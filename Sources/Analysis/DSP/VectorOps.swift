/// Small kernels written on SIMD vectors with masked updates: Swift's scalar `max` and strict
/// floating-point sums keep the optimiser from vectorising plain loops, and these run on every sample.
enum VectorOps {
    /// Natural log of normal x > 0 to 8e-5 absolute (0.14 cent as a pitch): exponent from the bits, a
    /// quartic for the mantissa. The onset envelope and the spectra take thousands of logs per second, where
    /// libm's precision buys nothing.
    @inline(__always)
    static func fastLog(_ x: Float) -> Float {
        let bits = x.bitPattern
        let exponent = Float(Int32(bitPattern: (bits >> 23) & 0xff) - 127)
        let m = Float(bitPattern: (bits & 0x007f_ffff) | 0x3f80_0000)   // mantissa in [1, 2)
        let t = m - 1
        return (exponent + log2OnePlus(t)) * 0.6931472
    }

    /// log2(1 + t) ≈ t·(a + t·(b + t·(c + t·d))) on [0, 1): the minimax quartic through both ends (so
    /// octaves join), 1.1e-4 at worst. (The cubic this replaced was off by up to 0.013, 16 cents, bending
    /// pitches by their place in the octave.)
    private static let log2Quartic: (a: Float, b: Float, c: Float, d: Float) = (1.4387258, -0.6777841, 0.3211891, -0.0821308)

    @inline(__always)
    private static func log2OnePlus(_ t: Float) -> Float {
        let q = log2Quartic
        return t * (q.a + t * (q.b + t * (q.c + t * q.d)))
    }

    @inline(__always)
    private static func log2OnePlus(_ t: SIMD8<Float>) -> SIMD8<Float> {
        let q = log2Quartic
        return t * (q.a + t * (q.b + t * (q.c + t * q.d)))
    }

    /// `fastLog` of eight values at once, lane for lane the same arithmetic (and so the same results).
    @inline(__always)
    static func fastLog(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
        let exponent = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: (bits &>> 23) & 0xff) &- 127)
        let m = unsafeBitCast((bits & 0x007f_ffff) | 0x3f80_0000, to: SIMD8<Float>.self)
        let t = m - 1
        return (exponent + log2OnePlus(t)) * 0.6931472
    }

    /// Σ fastLog(p[i] + floor) for i in 0..<count, summed in Double.
    @inline(__always)
    static func sumOfLogs(_ p: UnsafePointer<Float>, _ count: Int, floor: Float) -> Double {
        let raw = UnsafeRawPointer(p)
        var acc = SIMD8<Double>()
        let vectors = count / 8
        var v = 0
        while v < vectors {
            let x = raw.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self) + floor
            acc += SIMD8<Double>(fastLog(x))
            v += 1
        }
        var sum = 0.0
        for lane in 0..<8 { sum += acc[lane] }
        for i in (vectors * 8)..<count { sum += Double(fastLog(p[i] + floor)) }
        return sum
    }

    /// The largest value and the sum of p[i] for i in 0..<count (values ≥ 0, as in a power spectrum).
    @inline(__always)
    static func maxAndSum(_ p: UnsafePointer<Float>, _ count: Int) -> (max: Float, sum: Float) {
        let raw = UnsafeRawPointer(p)
        var top = SIMD8<Float>(), total = SIMD8<Float>()
        let vectors = count / 8
        var v = 0
        while v < vectors {
            let x = raw.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self)
            top.replace(with: x, where: x .> top)
            total += x
            v += 1
        }
        var m: Float = 0, s: Float = 0
        for lane in 0..<8 {
            if top[lane] > m { m = top[lane] }
            s += total[lane]
        }
        for i in (vectors * 8)..<count {
            if p[i] > m { m = p[i] }
            s += p[i]
        }
        return (m, s)
    }

    /// Σ a[i]·b[i] for i in 0..<count: products summed in Float lanes over blocks of 512, the blocks in
    /// Double, so a long envelope keeps Double-like precision at SIMD speed.
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Double {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var total = 0.0
        let vectors = count / 8
        var v = 0
        while v < vectors {
            var acc = SIMD8<Float>()
            let end = min(vectors, v + 64)
            while v < end {
                acc += ra.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self)
                    * rb.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self)
                v += 1
            }
            total += Double(acc.sum())
        }
        for i in (vectors * 8)..<count { total += Double(a[i] * b[i]) }
        return total
    }

    /// Σ a[i]·b[i] over two arrays of the same length.
    static func dot(_ a: [Float], _ b: [Float]) -> Double {
        precondition(a.count == b.count)
        return a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in dot(x.baseAddress!, y.baseAddress!, x.count) } }
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

    /// Adds each channel's sum and sum of squares over `count` interleaved samples into `sums` and `squares`
    /// (one pass; the squares are accumulated exactly as a squares-only pass would).
    @inline(__always)
    static func addSumsAndSquares(_ p: UnsafePointer<Float>, _ count: Int, channels: Int,
                                  sums: inout [Float], squares: inout [Float]) {
        guard 8 % channels == 0 else {
            for i in 0..<count {
                sums[i % channels] += p[i]
                squares[i % channels] += p[i] * p[i]
            }
            return
        }
        // With 1, 2, 4 or 8 channels, lane k of an 8-wide vector always holds channel k % channels.
        let raw = UnsafeRawPointer(p)
        var acc = SIMD8<Float>(), total = SIMD8<Float>()
        let vectors = count / 8
        var v = 0
        while v < vectors {
            let x = raw.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self)
            acc += x * x
            total += x
            v += 1
        }
        for lane in 0..<8 {
            squares[lane % channels] += acc[lane]
            sums[lane % channels] += total[lane]
        }
        var i = vectors * 8
        while i < count {
            squares[i % channels] += p[i] * p[i]
            sums[i % channels] += p[i]
            i += 1
        }
    }
}
