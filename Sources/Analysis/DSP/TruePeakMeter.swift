import Foundation

/// Sample peak and true peak (BS.1770-4 Annex 2): 4× oversampling below 96 kHz, 2× below 192 kHz,
/// with a 49-tap Hann-windowed sinc interpolator in polyphase form. Phase 0 reproduces the samples
/// themselves, so only the other phases are computed, and only where they could raise the maximum:
/// an interpolated value is bounded by (the phase's Σ|h|) × (the largest |x| under the filter), so a
/// channel's block, and within a block a 32-frame chunk, whose bound does not exceed the peak found so far
/// is skipped. That bound is exact, not a guess: the results are those of interpolating everything.
final class TruePeakMeter {
    private let channels: Int
    private let factor: Int
    private let taps: Int                 // taps per phase
    private let phases: [[Float]]         // phases 1..<factor, each `taps` long, newest sample first
    private let bound: Float              // max over phases of Σ|h|
    private var history: [[Float]]        // last taps-1 samples per channel
    private var historyPeaks: [Float]     // max |x| over `history`, per channel
    private var window: [Float]           // taps-1 + chunk samples of one channel
    private var output: [Float]           // one phase's outputs for a chunk
    private var chunkPeaks: [Float] = []  // chunk-major, one per channel
    private var blockPeaks: [Float]       // the current block's, one per channel
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
        historyPeaks = [Float](repeating: 0, count: channels)
        blockPeaks = [Float](repeating: 0, count: channels)
        window = [Float](repeating: 0, count: 11 + Self.chunk)
        output = [Float](repeating: 0, count: Self.chunk)
    }

    /// The reported true peak never lies below the sample peak.
    var truePeak: Float { max(samplePeak, interpolatedPeak) }

    func consume(_ interleaved: UnsafeBufferPointer<Float>, frames: Int) {
        guard frames > 0 else { return }
        // The whole block's peak per channel first, in one pass: once the loudest part of a track has
        // passed, most blocks cannot raise the true peak on any channel, and they end here.
        VectorOps.maxAbsPerChannel(interleaved.baseAddress!, frames * channels, channels: channels,
                                   into: &blockPeaks)
        samplePeak = max(samplePeak, blockPeaks.max() ?? 0)
        guard factor > 1 else { return keepHistory(interleaved, frames: frames) }
        // Decided before any channel runs, against a true peak that can only rise meanwhile: a channel left
        // out here is one whose every chunk the test below would skip.
        let peakSoFar = truePeak
        if (0..<channels).contains(where: { mayRaise(channel: $0, above: peakSoFar) }) {
            let chunk = Self.chunk
            let chunks = (frames + chunk - 1) / chunk
            if chunkPeaks.count < chunks * channels { chunkPeaks = [Float](repeating: 0, count: chunks * channels) }
            // Peaks per chunk and channel; an interleaved chunk is contiguous.
            chunkPeaks.withUnsafeMutableBufferPointer { peaks in
                for k in 0..<chunks {
                    let lo = k * chunk * channels, hi = min(frames, (k + 1) * chunk) * channels
                    VectorOps.maxAbsPerChannel(interleaved.baseAddress! + lo, hi - lo, channels: channels,
                                               into: peaks.baseAddress! + k * channels)
                }
            }
            for c in 0..<channels where mayRaise(channel: c, above: peakSoFar) {
                var previousPeak = historyPeaks[c]
                for k in 0..<chunks {
                    // Outputs of chunk k read this chunk and the 11 samples before it.
                    let peak = chunkPeaks[k * channels + c]
                    let windowPeak = max(previousPeak, peak)
                    previousPeak = peak
                    if bound * windowPeak <= truePeak { continue }
                    let lo = k * chunk, hi = min(frames, lo + chunk)
                    interpolatedPeak = max(interpolatedPeak, interpolate(interleaved, channel: c, frames: lo..<hi))
                }
            }
        }
        keepHistory(interleaved, frames: frames)
    }

    /// Whether channel `c`'s interpolated values in this block can exceed `peak`, by the exact bound.
    private func mayRaise(channel c: Int, above peak: Float) -> Bool {
        bound * max(historyPeaks[c], blockPeaks[c]) > peak
    }

    private func keepHistory(_ interleaved: UnsafeBufferPointer<Float>, frames: Int) {
        // Keep the last taps-1 samples of each channel for the next block.
        let keep = taps - 1
        for c in 0..<channels {
            if frames >= keep {
                for i in 0..<keep { history[c][i] = interleaved[(frames - keep + i) * channels + c] }
            } else {
                history[c].removeFirst(frames)
                for i in 0..<frames { history[c].append(interleaved[i * channels + c]) }
            }
            historyPeaks[c] = history[c].reduce(0) { max($0, abs($1)) }
        }
    }

    /// Largest |y| over the non-zero phases for the outputs at `frames` of channel `c`.
    private func interpolate(_ p: UnsafeBufferPointer<Float>, channel c: Int, frames range: Range<Int>) -> Float {
        let keep = taps - 1
        let count = range.count
        var peak: Float = 0
        window.withUnsafeMutableBufferPointer { x in
            // x[0..<keep] = the samples before the chunk, x[keep...] = the chunk.
            for i in 0..<keep {
                let f = range.lowerBound - keep + i
                x[i] = f >= 0 ? p[f * channels + c] : history[c][keep + f]
            }
            for i in 0..<count { x[keep + i] = p[(range.lowerBound + i) * channels + c] }
            output.withUnsafeMutableBufferPointer { out in
                for phase in phases {
                    phase.withUnsafeBufferPointer { h in
                        for i in 0..<count { out[i] = 0 }
                        for m in 0..<taps {
                            let coefficient = h[m]
                            let source = x.baseAddress! + (keep - m)
                            for i in 0..<count { out[i] += coefficient * source[i] }
                        }
                    }
                    peak = max(peak, VectorOps.maxAbs(out.baseAddress!, count))
                }
            }
        }
        return peak
    }
}
