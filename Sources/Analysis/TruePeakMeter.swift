import Foundation

/// Sample peak and true peak (BS.1770-4 Annex 2): 4× oversampling below 96 kHz, 2× below 192 kHz,
/// with a 49-tap Hann-windowed sinc interpolator in polyphase form. Phase 0 reproduces the samples
/// themselves, so only the other phases are computed, and only where they could raise the maximum:
/// an interpolated value is bounded by (the phase's Σ|h|) × (the largest |x| under the filter), so a
/// chunk whose bound does not exceed the peak found so far is skipped. That bound is exact, not a guess.
final class TruePeakMeter {
    private let channels: Int
    private let factor: Int
    private let taps: Int                 // taps per phase
    private let phases: [[Float]]         // phases 1..<factor, each `taps` long, newest sample first
    private let bound: Float              // max over phases of Σ|h|
    private var history: [[Float]]        // last taps-1 samples per channel
    private var scratch: [Float] = []
    private var chunkPeaks: [Float] = []
    private(set) var samplePeak: Float = 0
    private(set) var interpolatedPeak: Float = 0
    private static let chunk = 32

    init(sampleRate: Int, channels: Int) {
        self.channels = channels
        let factor = sampleRate < 96000 ? 4 : (sampleRate < 192000 ? 2 : 1)
        self.factor = factor
        let length = 12 * factor + 1
        let centre = Double(length - 1) / 2
        var h = [Double](repeating: 0, count: length)
        for j in 0..<length {
            let x = (Double(j) - centre) / Double(factor)
            let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
            let window = 0.5 * (1 - cos(2 * Double.pi * Double(j) / Double(length - 1)))
            h[j] = sinc * window
        }
        taps = 12
        var phases: [[Float]] = []
        for r in 1..<max(factor, 1) {
            phases.append((0..<12).map { m in Float(h[r + factor * m]) })
        }
        var largest: Float = 1
        for phase in phases { largest = max(largest, phase.reduce(0) { $0 + Swift.abs($1) }) }
        self.phases = phases
        bound = largest
        history = Array(repeating: [Float](repeating: 0, count: 11), count: channels)
    }

    /// The reported true peak never lies below the sample peak.
    var truePeak: Float { max(samplePeak, interpolatedPeak) }

    func consume(_ interleaved: UnsafeBufferPointer<Float>, frames: Int) {
        let lookback = taps - 1
        if scratch.count < lookback + frames { scratch = [Float](repeating: 0, count: lookback + frames) }
        let chunks = (frames + Self.chunk - 1) / Self.chunk
        if chunkPeaks.count < chunks { chunkPeaks = [Float](repeating: 0, count: chunks) }
        for c in 0..<channels {
            var blockPeak: Float = 0
            scratch.withUnsafeMutableBufferPointer { x in
                chunkPeaks.withUnsafeMutableBufferPointer { peaks in
                    // History first, then this block's samples of channel c.
                    for i in 0..<lookback { x[i] = history[c][i] }
                    for i in 0..<frames { x[lookback + i] = interleaved[i * channels + c] }
                    for k in 0..<chunks {
                        let lo = lookback + k * Self.chunk, hi = min(lookback + frames, lo + Self.chunk)
                        var m: Float = 0
                        for i in lo..<hi { m = max(m, abs(x[i])) }
                        peaks[k] = m
                        blockPeak = max(blockPeak, m)
                    }
                }
            }
            samplePeak = max(samplePeak, blockPeak)
            guard factor > 1 else { continue }
            var historyPeak: Float = history[c].reduce(0) { max($0, abs($1)) }
            for k in 0..<chunks {
                let windowPeak = max(historyPeak, chunkPeaks[k])
                historyPeak = chunkPeaks[k]
                if bound * windowPeak <= truePeak { continue }
                let lo = k * Self.chunk, hi = min(frames, lo + Self.chunk)
                interpolatedPeak = max(interpolatedPeak, interpolate(outputs: lo..<hi))
            }
            for i in 0..<lookback { history[c][i] = scratch[frames + i] }
        }
    }

    /// Largest |y| of every non-zero phase for outputs `range` (indices into the block; the filter
    /// reads scratch[n ... n + taps - 1], newest at the end).
    private func interpolate(outputs range: Range<Int>) -> Float {
        var peak: Float = 0
        let count = range.count
        var y = [Float](repeating: 0, count: Self.chunk)
        scratch.withUnsafeBufferPointer { x in
            y.withUnsafeMutableBufferPointer { out in
                for phase in phases {
                    for i in 0..<count { out[i] = 0 }
                    for m in 0..<taps {
                        let h = phase[m]
                        let offset = range.lowerBound + taps - 1 - m
                        for i in 0..<count { out[i] += h * x[offset + i] }
                    }
                    for i in 0..<count { peak = max(peak, abs(out[i])) }
                }
            }
        }
        return peak
    }
}
