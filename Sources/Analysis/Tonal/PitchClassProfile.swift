import Foundation

/// A track's pitch-class profile, built frame by frame from spectral peaks and robust to tuning: each peak
/// lands in a 10-cent bin of the octave; the magnitude-weighted circular mean of those positions within
/// their semitone gives the tuning; at the end the fine bins are folded onto 12 pitch classes around
/// that tuning. Each frame counts once whatever its level (normalised to its strongest bin), so a loud
/// chorus does not outvote the verses. Memory is fixed: a few arrays of 120 bins.
final class PitchClassProfile {
    static let binsPerSemitone = 10
    /// A peak also counts, less, for the notes it could be the 2nd and 3rd harmonic of (as in Gómez's HPCP):
    /// the 3rd harmonic of every bass note is its fifth, and without this the dominant outweighs the
    /// tonic. Chosen on the development set's `tune` split (1 to 4 harmonics, decay 0.4 to 0.8).
    static let subharmonicWeights = [1.0, 0.8, 0.64]
    /// Spectral flatness at which a frame counts as noise.
    static let noiseFlatness = 0.4
    private static let subharmonicSemitones = subharmonicWeights.indices.map { 12 * log2(Double($0 + 1)) }
    private static let fineBins = 12 * binsPerSemitone

    private let binHz: Double
    private let lowBin: Int
    private let highBin: Int
    /// Peaks below the frame's strongest by more than this ratio (power) are ignored.
    private let peakFloor: Float = 1e-5
    /// A frame whose strongest bin is below a sine 60 dB under full scale counts as silence.
    private let gate: Float
    private var fine = [Double](repeating: 0, count: fineBins)
    private var frameBins = [Double](repeating: 0, count: fineBins)
    private var peaks: [(bin: Double, magnitude: Double)] = []
    /// The peaks' own positions (no subharmonics), unnormalised: where the tuning is read.
    private var direct = [Double](repeating: 0, count: fineBins)
    private static let c0Hz = 440 * pow(2, -57.0 / 12)
    private(set) var frames = 0

    /// Spectra of `fftSize` points at `sampleRate`; pitches between `lowHz` and `highHz` count.
    init(sampleRate: Double, fftSize: Int, lowHz: Double = 50, highHz: Double = 3500) {
        binHz = sampleRate / Double(fftSize)
        lowBin = max(2, Int(lowHz / binHz))
        highBin = min(fftSize / 2 - 2, Int(highHz / binHz))
        gate = RealFFT.fullScaleSinePower(size: fftSize) * 1e-6
    }

    /// Adds one frame's power spectrum.
    func add(power p: UnsafeBufferPointer<Float>) {
        guard highBin > lowBin else { return }
        let bins = lowBin...highBin
        let (strongest, total) = VectorOps.maxAndSum(p.baseAddress! + lowBin, bins.count)
        guard strongest > gate else { return }
        // Noisy frames (drum hits, breath, applause) count less and pure noise not at all, so noise does not
        // invent a key.
        let flatness = SpectralFlatness.of(p, bins: bins, total: total, floor: 1e-20)
        let tonalWeight = max(0, 1 - flatness / Self.noiseFlatness)
        guard tonalWeight > 0 else { return }
        let floor = strongest * peakFloor
        peaks.removeAll(keepingCapacity: true)
        for k in bins where p[k] > floor && p[k] > p[k - 1] && p[k] >= p[k + 1] {
            // Parabolic interpolation on the log spectrum locates the peak within the bin.
            let a = VectorOps.fastLog(p[k - 1] + 1e-20), b = VectorOps.fastLog(p[k]), c = VectorOps.fastLog(p[k + 1] + 1e-20)
            let d = a - 2 * b + c
            let offset = d < 0 ? max(-0.5, min(0.5, 0.5 * (a - c) / d)) : 0
            peaks.append((Double(k) + Double(offset), Double(p[k]).squareRoot()))
        }
        var top = 0.0
        let perSemitone = Double(Self.binsPerSemitone)
        let weights = Self.subharmonicWeights, offsets = Self.subharmonicSemitones
        // Through unsafe buffers: ~150 peaks a frame each touch three bins, and a class's array property
        // mutated element by element pays a uniqueness check each time.
        frameBins.withUnsafeMutableBufferPointer { frameBins in
            direct.withUnsafeMutableBufferPointer { direct in
                for i in frameBins.indices { frameBins[i] = 0 }
                for peak in peaks {
                    // Semitones above C0 (8.18 Hz); fastLog's error is below 0.14 cent.
                    let semitones = Double(VectorOps.fastLog(Float(peak.bin * binHz / Self.c0Hz))) * (12 / M_LN2)
                    for (h, weight) in weights.enumerated() {
                        let s = max(0, semitones - offsets[h])
                        // The nearest fine bin within the octave; s ≥ 0, so truncating s + ½ rounds (and costs no
                        // libm call, which `rounded()` does on baseline x86-64).
                        let bin = Int((s - 12 * Double(Int(s / 12))) * perSemitone + 0.5) % Self.fineBins
                        frameBins[bin] += peak.magnitude * weight
                        top = max(top, frameBins[bin])
                        if h == 0 { direct[bin] += peak.magnitude }
                    }
                }
            }
        }
        guard top > 0 else { return }
        for i in fine.indices { fine[i] += tonalWeight * frameBins[i] / top }
        frames += 1
    }

    /// Deviation of the music's tuning from A = 440 Hz, in semitones (−0.5 ..< 0.5): the magnitude-weighted
    /// circular mean of the peaks' offsets from the equal-tempered grid.
    var tuning: Double {
        var x = 0.0, y = 0.0
        for (i, w) in direct.enumerated() where w > 0 {
            let angle = 2 * Double.pi * Double(i) / Double(Self.binsPerSemitone)
            x += w * cos(angle)
            y += w * sin(angle)
        }
        return atan2(y, x) / (2 * Double.pi)
    }

    /// The 12 pitch classes (C first), summing to 1, or nil when no frame had sound.
    func chroma() -> [Double]? { folded(fine) }

    /// The same of the peaks' own positions, without the subharmonics they also count for: what a lone note's
    /// harmonics look like as they are.
    func directChroma() -> [Double]? { folded(direct) }

    /// Fine bins folded onto 12 pitch classes around the tuning, summing to 1.
    private func folded(_ fine: [Double]) -> [Double]? {
        guard frames > 0 else { return nil }
        var classes = [Double](repeating: 0, count: 12)
        let shift = tuning
        for i in fine.indices where fine[i] > 0 {
            let semitone = Double(i) / Double(Self.binsPerSemitone) - shift
            var pc = Int(semitone.rounded()) % 12
            if pc < 0 { pc += 12 }
            classes[pc] += fine[i]
        }
        let total = classes.reduce(0, +)
        return total > 0 ? classes.map { $0 / total } : nil
    }
}
