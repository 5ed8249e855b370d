import Foundation

/// Timbre and texture of a track from its short-time power spectra: MFCCs, spectral centroid, roll-off,
/// flatness and octave-band contrast (mean and spread over the sounding frames), and how often and how
/// sharply notes start (onset rate and the mean spectral flux at onsets). Fixed memory: running moments only.
final class TimbreSummary {
    private let binHz: Double
    private let mel: MelCepstrum
    private let lowBin: Int
    private let highBin: Int
    private let contrastBands: [(lo: Int, hi: Int)]
    private let framesPerSecond: Double
    /// Frames whose total power is below this count as silence and are left out.
    private let gate: Float
    private var cepstra: RunningMoments
    private var shape = RunningMoments(dimensions: 3)
    private var contrast: RunningMoments
    private var previousMel: [Double]?
    private var flux: [Double] = []
    private var fluxLevel = 0.0
    private var attackSum = 0.0
    private var onsets = 0
    private var sounding = 0
    private var sortBuffer: [Float] = []
    private var floor: Float = 0

    static let contrastEdgesHz: [Double] = [100, 200, 400, 800, 1600, 3200, 6400, 11000]

    init(sampleRate: Double, fftSize: Int, hop: Int) {
        binHz = sampleRate / Double(fftSize)
        mel = MelCepstrum(sampleRate: sampleRate, fftSize: fftSize)
        cepstra = RunningMoments(dimensions: mel.coefficients)
        lowBin = max(1, Int(30 / binHz))
        highBin = min(fftSize / 2, Int(11000 / binHz))
        let nyquistBin = fftSize / 2, hzPerBin = binHz
        contrastBands = zip(Self.contrastEdgesHz, Self.contrastEdgesHz.dropFirst()).map { lo, hi in
            (min(nyquistBin, Int(lo / hzPerBin)), min(nyquistBin, max(Int(lo / hzPerBin) + 1, Int(hi / hzPerBin))))
        }
        contrast = RunningMoments(dimensions: contrastBands.count)
        framesPerSecond = sampleRate / Double(hop)
        // 70 dB below a full-scale sine is silence here.
        gate = RealFFT.fullScaleSinePower(size: fftSize) * 1e-7
    }

    func add(power p: UnsafeBufferPointer<Float>) {
        var total: Float = 0, weighted: Double = 0
        for k in lowBin...highBin {
            total += p[k]
            weighted += Double(p[k]) * Double(k)
        }
        guard total > gate else { previousMel = nil; return }
        // Floors relative to the frame's level (80 dB under its mean bin), so the level does not matter.
        floor = total / Float(highBin - lowBin + 1) * 1e-8
        sounding += 1
        let centroid = weighted / Double(total) * binHz
        var rolloffBin = highBin, running: Float = 0
        for k in lowBin...highBin {
            running += p[k]
            if running >= 0.85 * total { rolloffBin = k; break }
        }
        let flatness = SpectralFlatness.of(p, bins: lowBin...highBin, total: total, floor: floor)
        // Centroid and roll-off in octaves above 100 Hz, flatness in decades: scales on which a change means
        // the same at either end.
        shape.add([log2(max(centroid, 100) / 100), log2(max(Double(rolloffBin) * binHz, 100) / 100),
                   log10(max(flatness, 1e-6))])
        // Contrast needs a sort per band: every 8th frame (~3 per second) describes a track as well.
        if sounding % 8 == 1 { contrast.add(contrastBands.map { band in bandContrast(p, band) }) }
        let bands = mel.logBands(p)
        cepstra.add(mel.cepstrum(bands))
        onsetStep(bands)
    }

    /// Peak minus valley (mean of the top and of the bottom fifth of the band's bins), in decades.
    private func bandContrast(_ p: UnsafeBufferPointer<Float>, _ band: (lo: Int, hi: Int)) -> Double {
        guard band.hi > band.lo else { return 0 }
        sortBuffer.removeAll(keepingCapacity: true)
        sortBuffer.append(contentsOf: p[band.lo..<band.hi])
        let n = max(1, sortBuffer.count / 5)
        // Only the two fifths are summed, in sorted order: sort just them (a lone bin needs no order).
        if 2 * n <= sortBuffer.count {
            sortBuffer.withUnsafeMutableBufferPointer { QuickSelect.sortExtremes($0, n: n) }
        }
        var valley: Float = 0, peak: Float = 0
        for i in 0..<n {
            valley += sortBuffer[i]
            peak += sortBuffer[sortBuffer.count - 1 - i]
        }
        return log10(Double(peak + floor) / Double(valley + floor))
    }

    /// Onsets from the rise of the log mel bands (positive spectral flux, in decades summed over bands): an
    /// onset is a local peak of the flux above its recent (about one second) mean by half again plus a
    /// floor of 0.5 (a rise of 10 dB spread over the bands), so steady sound and noise count none.
    private func onsetStep(_ bands: [Double]) {
        defer { previousMel = bands }
        guard let previous = previousMel else { return }
        var value = 0.0
        for i in bands.indices where bands[i] > previous[i] { value += bands[i] - previous[i] }
        flux.append(value)
        if flux.count > 3 { flux.removeFirst() }
        let rate = 1 / framesPerSecond
        fluxLevel += rate * (value - fluxLevel)
        if flux.count == 3, flux[1] > flux[0], flux[1] >= flux[2], flux[1] > 1.5 * fluxLevel + 0.5 {
            onsets += 1
            attackSum += flux[1]
        }
    }

    struct Result {
        var mfccMean: [Double]
        var mfccSpread: [Double]
        var shapeMean: [Double]
        var shapeSpread: [Double]
        var contrast: [Double]
        var onsetRate: Double
        /// Mean flux at the onsets, per mel band (decades): how sharply notes start, whatever the tempo.
        var attack: Double
    }

    func finish() -> Result? {
        guard sounding >= 2 else { return nil }
        return Result(mfccMean: cepstra.mean, mfccSpread: cepstra.standardDeviation, shapeMean: shape.mean,
                      shapeSpread: shape.standardDeviation, contrast: contrast.mean,
                      onsetRate: Double(onsets) / (Double(sounding) / framesPerSecond),
                      attack: onsets > 0 ? attackSum / Double(onsets) / Double(MelCepstrum.bands) : 0)
    }
}
