import Foundation

/// A 4th-order Butterworth low-pass at 20 kHz (two biquads, RBJ's bilinear design) over interleaved
/// channels: what a listener can hear of a stream sampled at 176.4 kHz or more. A DSD file decoded at
/// 352.8 kHz carries its modulator's noise-shaped hiss above 20 kHz, at −48 dB RMS after a fade-out where
/// the audible band is at −77 dB; judged by ear it is silent, judged by raw samples it never would be.
struct AudibleBand {
    /// Both sections' coefficients, [b0, b1, b2, a1, a2] each.
    private let first: (Float, Float, Float, Float, Float)
    private let second: (Float, Float, Float, Float, Float)
    private let channels: Int
    /// Transposed direct form II: two state values per section and channel, channel-major.
    private var state: [Float]

    init(sampleRate: Int, channels: Int, cutoffHz: Double = 20000) {
        let w = 2 * Double.pi * cutoffHz / Double(sampleRate)
        // The two sections' Qs of a 4th-order Butterworth: 1 / (2 cos(π/8)), 1 / (2 cos(3π/8)).
        func section(_ q: Double) -> (Float, Float, Float, Float, Float) {
            let alpha = sin(w) / (2 * q), c = cos(w), a0 = 1 + alpha
            return (Float((1 - c) / 2 / a0), Float((1 - c) / a0), Float((1 - c) / 2 / a0), Float(-2 * c / a0),
                    Float((1 - alpha) / a0))
        }
        first = section(0.541_196_100_146_197)
        second = section(1.306_562_964_876_376_6)
        self.channels = channels
        state = [Float](repeating: 0, count: 4 * channels)
    }

    /// Filters `count` interleaved samples from `input` into `output`, both sections in one pass per sample,
    /// two channels at a time (SIMD2 lanes: their recursions are independent, so they overlap in the pipeline).
    mutating func process(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int) {
        let s1 = first, s2 = second
        let (b0, b1, b2, a1, a2) = (SIMD2(repeating: s1.0), SIMD2(repeating: s1.1), SIMD2(repeating: s1.2),
                                    SIMD2(repeating: s1.3), SIMD2(repeating: s1.4))
        let (d0, d1, d2, c1, c2) = (SIMD2(repeating: s2.0), SIMD2(repeating: s2.1), SIMD2(repeating: s2.2),
                                    SIMD2(repeating: s2.3), SIMD2(repeating: s2.4))
        let channels = self.channels
        state.withUnsafeMutableBufferPointer { z in
            var c = 0
            while c < channels {
                // A lone last channel runs in lane 0; lane 1 reads and writes nothing.
                let pair = c + 1 < channels
                var u1 = SIMD2(z[4 * c], pair ? z[4 * c + 4] : 0), u2 = SIMD2(z[4 * c + 1], pair ? z[4 * c + 5] : 0)
                var v1 = SIMD2(z[4 * c + 2], pair ? z[4 * c + 6] : 0), v2 = SIMD2(z[4 * c + 3], pair ? z[4 * c + 7] : 0)
                var i = c
                while i < count {
                    let x = SIMD2(input[i], pair ? input[i + 1] : 0)
                    let y = b0 * x + u1
                    u1 = b1 * x - a1 * y + u2
                    u2 = b2 * x - a2 * y
                    let out = d0 * y + v1
                    v1 = d1 * y - c1 * out + v2
                    v2 = d2 * y - c2 * out
                    output[i] = out[0]
                    if pair { output[i + 1] = out[1] }
                    i += channels
                }
                // Long digital silence would otherwise decay into subnormals, which are slow on x86.
                func flushed(_ v: Float) -> Float { abs(v) < 1e-25 ? 0 : v }
                for lane in 0..<(pair ? 2 : 1) {
                    let k = 4 * (c + lane)
                    (z[k], z[k + 1], z[k + 2], z[k + 3]) = (flushed(u1[lane]), flushed(u2[lane]), flushed(v1[lane]), flushed(v2[lane]))
                }
                c += 2
            }
        }
    }
}
