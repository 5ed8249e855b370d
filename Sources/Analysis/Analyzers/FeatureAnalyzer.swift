import Foundation

public struct FeatureResult: Sendable, Equatable {
    public var key: MusicalKey?
    public var keyStrength: Double?
    public var vector: FeatureVector?
}

/// Key and the feature vector in one pass over the mono mix: timbre from spectra of about 46 ms back to back
/// at the source rate (2048 points at 44.1 and 48 kHz; ~21 per second), pitch from the mix low-passed and
/// decimated to about 11 kHz (4096-point spectra every 2048 samples: 2.7 Hz bins, fine enough to tell bass
/// notes apart; without the overlap one key of the development set's tune split is lost).
/// The vector's tonal part is the chroma relative to the detected tonic, so two songs in different keys
/// but of the same kind still look alike.
public final class FeatureAnalyzer: Analyzer {
    private let pitchRate: Decimator
    private let timbreFrames: SpectrumFramer
    private let pitchFrames: SpectrumFramer
    private let timbre: TimbreSummary
    private let pitch: PitchClassProfile
    private let percussion: PercussiveShare

    public init(format: StreamFormat) {
        let timbreSize = 1 << Int(log2(0.046 * Double(format.sampleRate)).rounded())
        pitchRate = Decimator(sampleRate: format.sampleRate, minimumRate: 11025)
        timbreFrames = SpectrumFramer(size: timbreSize, hop: timbreSize)
        pitchFrames = SpectrumFramer(size: 4096, hop: 2048)
        timbre = TimbreSummary(sampleRate: Double(format.sampleRate), fftSize: timbreSize, hop: timbreSize)
        pitch = PitchClassProfile(sampleRate: pitchRate.outputRate, fftSize: 4096)
        percussion = PercussiveShare(sampleRate: Double(format.sampleRate), fftSize: timbreSize)
    }

    public func consume(_ block: AudioBlock) {
        timbreFrames.consume(block.mono) { timbre.add(power: $0); percussion.add(power: $0) }
        pitchRate.consume(block.mono) { narrow in
            pitchFrames.consume(narrow) { pitch.add(power: $0) }
        }
    }

    public func finish() -> FeatureResult {
        let chroma = pitch.chroma()
        let estimate = pitch.directChroma().map(KeyFinder.isLoneNote) == true ? nil : chroma.flatMap(KeyFinder.estimate)
        var result = FeatureResult(key: estimate?.key, keyStrength: estimate?.strength)
        guard let t = timbre.finish() else { return result }
        let tonic = estimate?.key.tonic ?? 0
        let relative = chroma.map { c in (0..<12).map { c[($0 + tonic) % 12] } } ?? [Double](repeating: 1.0 / 12, count: 12)
        let values = t.mfccMean + t.mfccSpread + t.shapeMean + t.shapeSpread + t.contrast + [t.onsetRate, t.attack]
            // Not measured (NaN, which the sonic space reads as missing) in a track shorter than the split's window.
            + [percussion.logRatio ?? .nan]
            + relative + [estimate?.strength ?? 0, estimate?.key.minor == true ? 1 : 0]
        precondition(values.count == FeatureVector.names.count, "FeatureVector.names out of step with the values")
        result.vector = FeatureVector(values: values.map { Float($0) })
        return result
    }
}

extension FeatureAnalyzer {
    public static let entry = AnalyzerEntry(
        name: "features", version: 5, needsMono: true,
        outputs: ["key", "key_strength", "features"],
        make: { format, _ in FeatureAnalyzer(format: format) },
        values: { r in
            ["key": r.key.map { .text($0.name) }, "key_strength": .number(r.keyStrength),
             "features": r.vector.map { .bytes($0.encoded) }]
        })
}

extension TrackAnalysis {
    /// The key, when the features analyzer ran and found one.
    public var key: (key: MusicalKey, strength: Double)? {
        guard let name = values["key"]?.text, let key = MusicalKey(name: name) else { return nil }
        return (key, values["key_strength"]?.double ?? 0)
    }

    public var features: FeatureVector? { values["features"]?.data.flatMap(FeatureVector.init(encoded:)) }
}
