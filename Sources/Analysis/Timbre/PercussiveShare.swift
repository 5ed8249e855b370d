import Foundation

/// How much of a track's sound is percussive: Fitzgerald's harmonic/percussive split (2010) of its short-time
/// power spectra, with his binary mask. A held note is a horizontal line in a spectrogram and a drum hit a
/// vertical one, so a bin is percussive when the median of its neighbours in its own frame (17 bins, about
/// 370 Hz) exceeds the median of its own values over 9 frames (about 0.4 s) around it, and harmonic otherwise.
/// The result is log10 of the percussive over the harmonic energy from 30 Hz to 5.5 kHz, where a drum kit's
/// thump and noise and the partials of voices and instruments lie; it does not depend on the level.
///
/// Onset rate and attack count how often and how sharply sound starts, which plucked strings and a piano do
/// as much as drums do; this measures how much of the sound is drum-like. On the development set it tells
/// the score renders with a drum track from those without them at an AUC of 0.98, where the best of the other
/// 55 dimensions (an MFCC mean) reaches 0.89 and onset rate 0.77. The kernels span about what Fitzgerald's
/// 17 × 17 did in time (0.4 s) and twice his band (4096-point spectra there, 2048 here): in trials on the same
/// files, half the band told the renders apart less well (AUC 0.92).
final class PercussiveShare {
    static let timeFrames = 9
    static let frequencyBins = 17
    static let bandHz = 30.0...5500.0
    private let lowBin: Int
    private let width: Int
    /// `width` in vectors of 8 bins; lanes past `width` hold 0 in `ring`.
    private let groups: Int
    /// The last `timeFrames` frames' bins, frame-major, `groups` vectors each.
    private var ring: [SIMD8<Float>]
    /// The centre frame's bins with `frequencyBins / 2` copies of its edge bins on either side (and of its
    /// top bin up to the last vector's end): the neighbours of every bin, as a median filter pads them.
    private var line: [Float]
    private var scratch: [SIMD8<Float>]
    private var frames = 0
    private var percussive = 0.0
    private var harmonic = 0.0
    private let acrossTime = MedianNetwork(size: timeFrames)
    private let acrossFrequency = MedianNetwork(size: frequencyBins)

    /// Spectra of `fftSize` points at `sampleRate`.
    init(sampleRate: Double, fftSize: Int) {
        let binHz = sampleRate / Double(fftSize)
        lowBin = max(1, Int((Self.bandHz.lowerBound / binHz).rounded(.up)))
        let highBin = max(lowBin, min(fftSize / 2, Int(Self.bandHz.upperBound / binHz)))
        width = highBin - lowBin + 1
        groups = (width + 7) / 8
        ring = [SIMD8<Float>](repeating: SIMD8(), count: Self.timeFrames * groups)
        line = [Float](repeating: 0, count: groups * 8 + 2 * (Self.frequencyBins / 2))
        scratch = [SIMD8<Float>](repeating: SIMD8(), count: max(Self.timeFrames, Self.frequencyBins))
    }

    /// Adds one frame's power spectrum (silent frames too: they keep the frames around a sound in step).
    func add(power p: UnsafeBufferPointer<Float>) {
        let slot = frames % Self.timeFrames
        ring.withUnsafeMutableBufferPointer { ring in
            let lanes = UnsafeMutableRawPointer(ring.baseAddress! + slot * groups).assumingMemoryBound(to: Float.self)
            for i in 0..<width { lanes[i] = p[lowBin + i] }
            for i in width..<(groups * 8) { lanes[i] = 0 }
        }
        frames += 1
        // Every second frame is split: the share is a track's total, which half the frames estimate as well
        // (on the development set within 0.02 for 90 % of the tracks, at most 0.33 on a range of 5), at half
        // the cost of the medians.
        guard frames >= Self.timeFrames, frames % 2 == 1 else { return }
        split(centre: (frames - 1 - Self.timeFrames / 2) % Self.timeFrames)
    }

    /// Sorts the centre frame's bins into percussive and harmonic energy.
    private func split(centre: Int) {
        let half = Self.frequencyBins / 2, groups = self.groups, width = self.width
        var percussiveSum = SIMD8<Float>(), harmonicSum = SIMD8<Float>()
        ring.withUnsafeBufferPointer { ring in
            let bins = UnsafeRawPointer(ring.baseAddress! + centre * groups).assumingMemoryBound(to: Float.self)
            line.withUnsafeMutableBufferPointer { line in
                for i in 0..<half { line[i] = bins[0] }
                for i in 0..<width { line[half + i] = bins[i] }
                for i in (half + width)..<line.count { line[i] = bins[width - 1] }
                let raw = UnsafeRawPointer(line.baseAddress!)
                scratch.withUnsafeMutableBufferPointer { scratch in
                    let s = scratch.baseAddress!
                    for g in 0..<groups {
                        for t in 0..<Self.timeFrames { s[t] = ring[t * groups + g] }
                        let alongTime = acrossTime.median(s)
                        for m in 0..<Self.frequencyBins {
                            s[m] = raw.loadUnaligned(fromByteOffset: (g * 8 + m) * 4, as: SIMD8<Float>.self)
                        }
                        let alongFrequency = acrossFrequency.median(s)
                        let energy = ring[centre * groups + g]
                        let harmonicPart = energy.replacing(with: 0, where: alongFrequency .> alongTime)
                        harmonicSum += harmonicPart
                        percussiveSum += energy - harmonicPart
                    }
                }
            }
        }
        percussive += Double(percussiveSum.sum())
        harmonic += Double(harmonicSum.sum())
    }

    /// log10(percussive / harmonic energy), within ±6; nil before a full window of frames or without sound.
    var logRatio: Double? {
        let total = percussive + harmonic
        guard total > 0 else { return nil }
        let tiny = total * 1e-6
        return log10((percussive + tiny) / (harmonic + tiny))
    }
}
