import Foundation

public struct LoudnessResult: Sendable, Equatable, Codable {
    /// Integrated loudness in LUFS; nil when nothing passes the absolute gate (silence).
    public var integratedLUFS: Double?
    /// Loudness range in LU; nil when shorter than one 3 s short-term block or silent.
    public var rangeLU: Double?
    /// Linear peaks (1.0 = full scale).
    public var truePeak: Double
    public var samplePeak: Double
    /// The gating blocks, encoded (LoudnessHistogram.encoded()), for album loudness.
    public var blocks = Data()

    public var truePeakDBTP: Double? { truePeak > 0 ? 20 * log10(truePeak) : nil }
    public var samplePeakDBFS: Double? { samplePeak > 0 ? 20 * log10(samplePeak) : nil }
    /// ReplayGain 2.0 track gain: reference −18 LUFS.
    public var replayGainDB: Double? { integratedLUFS.map { -18 - $0 } }
}

/// EBU R128 / ITU-R BS.1770-4 meter: K-weighted mean square in 100 ms sub-blocks, 400 ms gating blocks
/// every 100 ms (75 % overlap) for integrated loudness, 3 s short-term blocks every 100 ms for the
/// loudness range, plus sample and true peak. EBU Tech 3342 (2016) asks for short-term values at 10 Hz or
/// more (consecutive windows overlapping by at least 2.9 s), as ffmpeg's ebur128 filter takes them;
/// libebur128's hop of 1 s, which version 1 of this meter followed, samples a track's changes of level
/// at a grid's whim and reads up to 0.5 LU low on music.
public final class LoudnessMeter: Analyzer {
    private let channels: Int
    private let filter: KWeighting
    private var states: [KWeightingState<SIMD2<Double>>]
    private let weights: [Double]
    private let subBlockLength: Int
    private var subBlockFill = 0
    private var subBlockSums: [Double]
    /// Weighted energy sums of the last 30 sub-blocks (a 3 s window), newest last.
    private var recent: [Double] = []
    private var subBlocksDone = 0
    private var blocks = LoudnessHistogram()
    private var shortTerm = LoudnessHistogram()
    private let peaks: TruePeakMeter

    public init(format: StreamFormat) {
        channels = format.channels
        filter = KWeighting(sampleRate: format.sampleRate)
        states = Array(repeating: KWeightingState(), count: (format.channels + 1) / 2)
        weights = SpeakerBits.loudnessWeights(channels: format.channels, speakers: format.speakers)
        subBlockLength = (format.sampleRate + 5) / 10
        subBlockSums = [Double](repeating: 0, count: format.channels)
        peaks = TruePeakMeter(sampleRate: format.sampleRate, channels: format.channels)
        recent.reserveCapacity(31)
    }

    public func consume(_ block: AudioBlock) {
        peaks.consume(block.interleaved, frames: block.frames)
        var offset = 0
        while offset < block.frames {
            let n = min(block.frames - offset, subBlockLength - subBlockFill)
            filterSegment(block.interleaved.baseAddress! + offset * channels, frames: n)
            offset += n
            subBlockFill += n
            if subBlockFill == subBlockLength { closeSubBlock() }
        }
        for i in states.indices { states[i].flushTiny() }
    }

    private func filterSegment(_ p: UnsafePointer<Float>, frames: Int) {
        let (b0, b1, b2, b3, b4) = filter.b
        let (a1, a2, a3, a4) = filter.a
        let channels = self.channels
        for pair in states.indices {
            let c0 = 2 * pair
            let hasSecond = c0 + 1 < channels
            var s = states[pair]
            var acc = SIMD2<Double>()
            if hasSecond {
                for i in 0..<frames {
                    let x = SIMD2(Double(p[i * channels + c0]), Double(p[i * channels + c0 + 1]))
                    let partial = x - a2 * s.v2 - a3 * s.v3 - a4 * s.v4
                    let v0 = partial - a1 * s.v1
                    let y = b0 * v0 + b1 * s.v1 + b2 * s.v2 + b3 * s.v3 + b4 * s.v4
                    s.v4 = s.v3; s.v3 = s.v2; s.v2 = s.v1; s.v1 = v0
                    acc += y * y
                }
            } else {
                for i in 0..<frames {
                    let x = SIMD2(Double(p[i * channels + c0]), 0)
                    let partial = x - a2 * s.v2 - a3 * s.v3 - a4 * s.v4
                    let v0 = partial - a1 * s.v1
                    let y = b0 * v0 + b1 * s.v1 + b2 * s.v2 + b3 * s.v3 + b4 * s.v4
                    s.v4 = s.v3; s.v3 = s.v2; s.v2 = s.v1; s.v1 = v0
                    acc += y * y
                }
            }
            states[pair] = s
            subBlockSums[c0] += acc[0]
            if hasSecond { subBlockSums[c0 + 1] += acc[1] }
        }
    }

    private func closeSubBlock() {
        var weighted = 0.0
        for c in 0..<channels { weighted += weights[c] * subBlockSums[c]; subBlockSums[c] = 0 }
        subBlockFill = 0
        subBlocksDone += 1
        recent.append(weighted)
        if recent.count > 30 { recent.removeFirst() }
        let n = Double(subBlockLength)
        if subBlocksDone >= 4 {
            let last4 = recent[(recent.count - 4)...].reduce(0, +)
            blocks.add(energy: last4 / (4 * n))
        }
        if subBlocksDone >= 30 { shortTerm.add(energy: recent.reduce(0, +) / (30 * n)) }
    }

    public func finish() -> LoudnessResult {
        let integrated = blocks.integrated()
        return LoudnessResult(integratedLUFS: integrated,
                              rangeLU: integrated == nil ? nil : shortTerm.range(),
                              truePeak: Double(peaks.truePeak), samplePeak: Double(peaks.samplePeak),
                              blocks: Data(blocks.encoded()))
    }
}

extension LoudnessMeter {
    public static let entry = AnalyzerEntry(
        name: "loudness", version: 2, needsMono: false,
        outputs: ["lufs_integrated", "loudness_range_lu", "true_peak_dbtp", "sample_peak_dbfs", "replaygain_track_gain_db",
                  "loudness_blocks"],
        make: { format, _ in LoudnessMeter(format: format) },
        values: { r in
            ["lufs_integrated": .number(r.integratedLUFS), "loudness_range_lu": .number(r.rangeLU),
             "true_peak_dbtp": .number(r.truePeakDBTP), "sample_peak_dbfs": .number(r.samplePeakDBFS),
             "replaygain_track_gain_db": .number(r.replayGainDB), "loudness_blocks": .bytes(r.blocks)]
        })
}

extension TrackAnalysis {
    /// The loudness results, when the loudness analyzer ran.
    public var loudness: LoudnessResult? {
        guard versions[LoudnessMeter.entry.name] != nil else { return nil }
        func linear(_ key: String) -> Double { values[key]?.double.map { pow(10, $0 / 20) } ?? 0 }
        return LoudnessResult(integratedLUFS: values["lufs_integrated"]?.double, rangeLU: values["loudness_range_lu"]?.double,
                              truePeak: linear("true_peak_dbtp"), samplePeak: linear("sample_peak_dbfs"),
                              blocks: values["loudness_blocks"]?.data ?? Data())
    }
}
