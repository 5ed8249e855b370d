import Foundation

/// Streaming integer-factor decimation of the mono mix with a windowed-sinc low-pass (Blackman, 8 taps per
/// unit of factor: the top of the new band is soft, but little above the new Nyquist frequency folds back
/// onto the pitches and timbre measured well below it). Only the kept samples are computed.
final class Decimator {
    let factor: Int
    let outputRate: Double
    private let taps: [Float]
    /// Input not yet fully consumed: the last `taps.count - 1` samples plus whatever the block brought.
    private var pending: [Float] = []
    private var output: [Float] = []

    /// The largest factor that keeps the output rate at or above `minimumRate`.
    init(sampleRate: Int, minimumRate: Double) {
        factor = max(1, Int(Double(sampleRate) / minimumRate))
        outputRate = Double(sampleRate) / Double(factor)
        guard factor > 1 else { taps = [1]; return }
        let count = 8 * factor + 1
        let cutoff = 0.45 / Double(factor)            // of the input rate: just below the new Nyquist
        let middle = Double(count - 1) / 2
        var h = (0..<count).map { i -> Double in
            let x = Double(i) - middle
            let sinc = x == 0 ? 2 * cutoff : sin(2 * Double.pi * cutoff * x) / (Double.pi * x)
            let w = 0.42 - 0.5 * cos(2 * Double.pi * Double(i) / Double(count - 1)) + 0.08 * cos(4 * Double.pi * Double(i) / Double(count - 1))
            return sinc * w
        }
        let sum = h.reduce(0, +)
        h = h.map { $0 / sum }
        // Zero-padded to whole 8-float vectors for the SIMD dot product.
        taps = h.map(Float.init) + [Float](repeating: 0, count: (8 - count % 8) % 8)
        pending = [Float](repeating: 0, count: taps.count - 1)     // the filter starts on silence
    }

    /// Feeds samples at the source rate; calls `emit` with each block of output samples.
    func consume(_ input: UnsafeBufferPointer<Float>, emit: (UnsafeBufferPointer<Float>) -> Void) {
        if factor == 1 { emit(input); return }
        pending.append(contentsOf: input)
        let n = taps.count
        let produced = pending.count >= n ? (pending.count - n) / factor + 1 : 0
        if output.count < produced { output = [Float](repeating: 0, count: produced) }
        pending.withUnsafeBufferPointer { x in
            taps.withUnsafeBufferPointer { h in
                output.withUnsafeMutableBufferPointer { out in
                    let vectors = n / 8
                    let hv = UnsafeRawPointer(h.baseAddress!)
                    /// The taps times the input from `o`, in eight lanes (each lane's products summed in tap order).
                    func lanes(_ o: Int) -> SIMD8<Float> {
                        let base = UnsafeRawPointer(x.baseAddress! + o * factor)
                        var acc = SIMD8<Float>()
                        for v in 0..<vectors {
                            acc += base.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self)
                                * hv.loadUnaligned(fromByteOffset: v * 32, as: SIMD8<Float>.self)
                        }
                        return acc
                    }
                    // Four outputs at a time: their lanes are added side by side in lane order, the same sums
                    // as `SIMD8.sum()` one output at a time gives (so the same values), in a quarter of the adds.
                    var o = 0
                    while o + 4 <= produced {
                        let a0 = lanes(o), a1 = lanes(o + 1), a2 = lanes(o + 2), a3 = lanes(o + 3)
                        var sum = SIMD4(a0[0], a1[0], a2[0], a3[0])
                        for lane in 1..<8 { sum += SIMD4(a0[lane], a1[lane], a2[lane], a3[lane]) }
                        for k in 0..<4 { out[o + k] = sum[k] }
                        o += 4
                    }
                    while o < produced {
                        out[o] = lanes(o).sum()
                        o += 1
                    }
                }
            }
        }
        pending.removeFirst(produced * factor)
        output.withUnsafeBufferPointer { emit(UnsafeBufferPointer(rebasing: $0[0..<produced])) }
    }
}
