import Foundation

/// Streaming integer-factor decimation of the mono mix with a windowed-sinc low-pass (Blackman, 16 taps per
/// unit of factor), so that content above the new Nyquist frequency does not fold back onto the pitches
/// and timbre measured below it. Only the kept samples are computed.
final class Decimator {
    let factor: Int
    let outputRate: Double
    private let taps: [Float]
    /// Input not yet fully consumed: the last `taps.count - 1` samples plus whatever the block brought.
    private var pending: [Float] = []
    /// Index in `pending` of the first sample of the next output's window.
    private var next = 0

    /// The largest factor that keeps the output rate at or above `minimumRate`.
    init(sampleRate: Int, minimumRate: Double) {
        factor = max(1, Int(Double(sampleRate) / minimumRate))
        outputRate = Double(sampleRate) / Double(factor)
        guard factor > 1 else { taps = [1]; return }
        let count = 16 * factor + 1
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
        taps = h.map(Float.init)
        pending = [Float](repeating: 0, count: count - 1)     // the filter starts on silence
    }

    /// Feeds samples at the source rate; calls `emit` with each block of output samples.
    func consume(_ input: UnsafeBufferPointer<Float>, emit: (UnsafeBufferPointer<Float>) -> Void) {
        if factor == 1 { emit(input); return }
        pending.append(contentsOf: input)
        let n = taps.count
        var out: [Float] = []
        out.reserveCapacity((pending.count - next) / factor + 1)
        pending.withUnsafeBufferPointer { x in
            taps.withUnsafeBufferPointer { h in
                while next + n <= x.count {
                    var s: Float = 0
                    let base = x.baseAddress! + next
                    for k in 0..<n { s += base[k] * h[k] }
                    out.append(s)
                    next += factor
                }
            }
        }
        pending.removeFirst(next)
        next = 0
        out.withUnsafeBufferPointer { emit($0) }
    }
}
