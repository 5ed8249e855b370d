import Foundation

/// The BS.1770 K-weighting (high-shelf "pre-filter" then RLB high-pass), designed for any sample rate
/// from its analogue prototype and combined into one 4th-order section: one recursion per sample
/// instead of two, evaluated in Double (poles sit close to z = 1 at low cut-offs).
struct KWeighting {
    let b: (Double, Double, Double, Double, Double)
    let a: (Double, Double, Double, Double)   // a1...a4 (a0 = 1)

    init(sampleRate: Int) {
        let fs = Double(sampleRate)
        // Stage 1: high shelf, +4 dB above ~1.7 kHz.
        var f0 = 1681.974450955533
        let gain = 3.999843853973347
        var q = 0.7071752369554196
        var k = tan(Double.pi * f0 / fs)
        let vh = pow(10, gain / 20)
        let vb = pow(vh, 0.4996667741545416)
        var a0 = 1 + k / q + k * k
        let pb = [(vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0]
        let pa = [1, 2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0]
        // Stage 2: RLB high-pass at ~38 Hz.
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = tan(Double.pi * f0 / fs)
        a0 = 1 + k / q + k * k
        let rb: [Double] = [1, -2, 1]
        let ra = [1, 2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0]
        func convolve(_ x: [Double], _ y: [Double]) -> [Double] {
            var out = [Double](repeating: 0, count: x.count + y.count - 1)
            for i in x.indices { for j in y.indices { out[i + j] += x[i] * y[j] } }
            return out
        }
        let bb = convolve(pb, rb), aa = convolve(pa, ra)
        b = (bb[0], bb[1], bb[2], bb[3], bb[4])
        a = (aa[1], aa[2], aa[3], aa[4])
    }
}

/// Per-channel direct-form-II state of the K-weighting filter, SIMD across up to `Lanes` channels.
struct KWeightingState<Lanes: SIMD> where Lanes.Scalar == Double {
    var v1 = Lanes(), v2 = Lanes(), v3 = Lanes(), v4 = Lanes()

    /// Flushes states that decayed towards zero: long digital silence would otherwise reach
    /// subnormal numbers, which are very slow on x86.
    mutating func flushTiny() {
        let tiny = Lanes(repeating: 1e-30)
        let zero = Lanes()
        v1.replace(with: zero, where: abs(v1) .< tiny)
        v2.replace(with: zero, where: abs(v2) .< tiny)
        v3.replace(with: zero, where: abs(v3) .< tiny)
        v4.replace(with: zero, where: abs(v4) .< tiny)
    }

    private func abs(_ v: Lanes) -> Lanes {
        var r = v
        for i in r.indices { r[i] = Swift.abs(v[i]) }
        return r
    }
}
