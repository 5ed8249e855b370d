import Foundation

public struct SilenceResult: Sendable, Equatable, Codable {
    /// Where leading silence ends (the seek-to point), seconds. nil when the whole stream is silent.
    public var leadSilenceEnd: Double?
    /// Where trailing silence begins (the crossfade trigger), seconds. nil when the whole stream is silent.
    public var trailSilenceStart: Double?
    public var isSilent: Bool
}

/// Leading and trailing silence at a threshold in dBFS. Audio is judged in 5 ms windows by their RMS
/// (loudest channel), so a noise pad whose level stays under the threshold never counts as sound even when
/// single samples poke above it; the boundary is then placed at the first (or after the last) sample above
/// the threshold in the first (last) loud window or the window next to it: sample resolution.
/// Per window only a sum of squares and a peak are computed; samples are searched only around boundaries.
/// At 176.4 kHz and above (DSD decodes at 352.8 kHz) the windows read the audible band only (`AudibleBand`):
/// a DSD file's ultrasonic hiss had made its fade-out sound forever. Below, ultrasonic hiss that loud is
/// rare and the filter would cost more than the rest of the detector.
/// A DC offset is inaudible too, and rips from sound cards and tape often carry one: at −40 dBFS it made every
/// window "sound", and such a file had no silence at either end. The windows are also judged about the offset
/// (`OffsetSilence`), and that judgement wins where it moves a boundary by 100 ms or more.
public final class SilenceDetector: Analyzer {
    private let channels: Int
    private let sampleRate: Int
    private let threshold: Float
    private let thresholdSquare: Float
    private let windowLength: Int
    /// Samples of the current window seen in earlier blocks (a window may straddle blocks).
    private var carry: [Float] = []
    private var position: Int64 = 0          // frames consumed before the current window
    private var squares: [Float]
    private var sums: [Float]
    /// The windows judged as they always were, and judged about a DC offset (`OffsetSilence`).
    private var plain: SilenceBoundaries
    private var aboutOffset: OffsetSilence
    private let zeroOffsets: [Float]
    private var audible: AudibleBand?
    private var filtered: [Float] = []

    public init(format: StreamFormat, thresholdDB: Double) {
        channels = format.channels
        sampleRate = format.sampleRate
        threshold = Float(pow(10, thresholdDB / 20))
        thresholdSquare = Float(pow(10, thresholdDB / 10))
        windowLength = max(1, format.sampleRate / 200)
        squares = [Float](repeating: 0, count: format.channels)
        sums = squares
        zeroOffsets = squares
        plain = SilenceBoundaries(channels: format.channels, threshold: threshold)
        aboutOffset = OffsetSilence(channels: format.channels, threshold: threshold, windowFrames: windowLength)
        if format.sampleRate >= 176_400 { audible = AudibleBand(sampleRate: format.sampleRate, channels: format.channels) }
    }

    public func consume(_ block: AudioBlock) {
        guard audible != nil else { return consumeAudible(block.interleaved, frames: block.frames) }
        let count = block.frames * channels
        if filtered.count < count { filtered = [Float](repeating: 0, count: count) }
        filtered.withUnsafeMutableBufferPointer { out in
            audible!.process(block.interleaved.baseAddress!, out.baseAddress!, count: count)
        }
        filtered.withUnsafeBufferPointer { consumeAudible(UnsafeBufferPointer(rebasing: $0[0..<count]), frames: block.frames) }
    }

    private func consumeAudible(_ p: UnsafeBufferPointer<Float>, frames: Int) {
        let stride = windowLength * channels
        var offset = 0
        let total = frames * channels
        if !carry.isEmpty {
            let need = min(stride - carry.count, total)
            carry.append(contentsOf: p[0..<need])
            offset = need
            if carry.count == stride {
                let window = carry
                window.withUnsafeBufferPointer { closeWindow($0) }
                carry.removeAll(keepingCapacity: true)
            }
        }
        while offset + stride <= total {
            closeWindow(UnsafeBufferPointer(rebasing: p[offset..<(offset + stride)]))
            offset += stride
        }
        if offset < total { carry.append(contentsOf: p[offset..<total]) }
    }

    /// Judges one window (interleaved samples), plainly and about the offset, and moves both boundaries.
    private func closeWindow(_ w: UnsafeBufferPointer<Float>) {
        let frames = w.count / channels
        let n = Float(frames)
        for c in 0..<channels { squares[c] = 0; sums[c] = 0 }
        VectorOps.addSumsAndSquares(w.baseAddress!, w.count, channels: channels, sums: &sums, squares: &squares)
        let loud = (squares.max() ?? 0) / n > thresholdSquare
        plain.add(w, start: position, loud: loud, offsets: zeroOffsets)
        aboutOffset.add(w, sums: sums, squares: squares, start: position, plainlyLoud: loud)
        position += Int64(frames)
    }

    public func finish() -> SilenceResult {
        if !carry.isEmpty {
            let window = carry
            window.withUnsafeBufferPointer { closeWindow($0) }
            carry.removeAll()
        }
        // Silence about an offset counts only when it lasts 100 ms: a waveform that opens on a step (a tracker
        // sample starting off zero) or closes on a decaying one is sound, as it always was.
        aboutOffset.finish()
        let least = Int64(sampleRate / 10)
        guard let plainLead = plain.leadEnd, let plainTrail = plain.trailStart else {
            return SilenceResult(leadSilenceEnd: nil, trailSilenceStart: nil, isSilent: true)
        }
        guard let offsetLead = aboutOffset.boundaries.leadEnd, let offsetTrail = aboutOffset.boundaries.trailStart else {
            if position >= least { return SilenceResult(leadSilenceEnd: nil, trailSilenceStart: nil, isSilent: true) }
            return result(lead: plainLead, trail: plainTrail)
        }
        return result(lead: offsetLead - plainLead >= least ? offsetLead : plainLead,
                      trail: plainTrail - offsetTrail >= least ? offsetTrail : plainTrail)
    }

    private func result(lead: Int64, trail: Int64) -> SilenceResult {
        let rate = Double(sampleRate)
        return SilenceResult(leadSilenceEnd: Double(lead) / rate, trailSilenceStart: Double(trail) / rate, isSilent: false)
    }
}

extension SilenceDetector {
    public static let entry = AnalyzerEntry(
        name: "silence", version: 3, needsMono: false,
        outputs: ["lead_silence_end_s", "trail_silence_start_s", "is_silent"],
        make: { format, options in SilenceDetector(format: format, thresholdDB: options.silenceThresholdDB) },
        values: { r in
            ["lead_silence_end_s": .number(r.leadSilenceEnd), "trail_silence_start_s": .number(r.trailSilenceStart),
             "is_silent": .flag(r.isSilent)]
        })
}

extension TrackAnalysis {
    /// The silence boundaries, when the silence analyzer ran.
    public var silence: SilenceResult? {
        guard versions[SilenceDetector.entry.name] != nil else { return nil }
        return SilenceResult(leadSilenceEnd: values["lead_silence_end_s"]?.double,
                             trailSilenceStart: values["trail_silence_start_s"]?.double,
                             isSilent: values["is_silent"]?.bool ?? false)
    }
}
