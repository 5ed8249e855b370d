import Foundation

/// Everything one pass over a track produced; nil for analyzers that were not enabled.
public struct TrackAnalysis: Sendable, Codable {
    public var loudness: LoudnessResult?
    public var silence: SilenceResult?
    public var tempo: TempoResult?
    public var frames: VisualFrames?
    /// Frames consumed.
    public var frameCount: Int64
    /// Seconds spent in each analyzer (for `spindle bench`).
    public var timings: [AnalysisOptions.Kind: Double]
}

/// Runs the enabled analyzers over one stream: the decode loop hands each block here once, the mono mix
/// is computed once per block for the analyzers that need it, and `finish` collects the results.
public final class TrackAnalyzer {
    private let format: StreamFormat
    private let loudness: LoudnessMeter?
    private let silence: SilenceDetector?
    private let tempo: TempoEstimator?
    private let frames: SpectrumFrameAnalyzer?
    private let needsMono: Bool
    private var mono: [Float] = []
    private var frameCount: Int64 = 0
    private let profile: Bool
    private var timings: [AnalysisOptions.Kind: Double] = [:]

    public init(format: StreamFormat, options: AnalysisOptions, profile: Bool = false) {
        self.format = format
        self.profile = profile
        let on = options.enabled
        loudness = on.contains(.loudness) ? LoudnessMeter(format: format) : nil
        silence = on.contains(.silence) ? SilenceDetector(format: format, thresholdDB: options.silenceThresholdDB) : nil
        tempo = on.contains(.tempo) ? TempoEstimator(format: format, minBPM: options.minBPM, maxBPM: options.maxBPM) : nil
        frames = on.contains(.frames) ? SpectrumFrameAnalyzer(format: format, options: options) : nil
        needsMono = tempo != nil || frames != nil
    }

    /// `samples` holds `count` interleaved frames.
    public func consume(_ samples: UnsafeBufferPointer<Float>, frames count: Int) {
        guard count > 0 else { return }
        frameCount += Int64(count)
        let channels = format.channels
        if needsMono {
            if mono.count < count { mono = [Float](repeating: 0, count: count) }
            let started = profile ? now() : 0
            mono.withUnsafeMutableBufferPointer { m in
                if channels == 1 {
                    for i in 0..<count { m[i] = samples[i] }
                } else if channels == 2 {
                    for i in 0..<count { m[i] = 0.5 * (samples[2 * i] + samples[2 * i + 1]) }
                } else {
                    let scale = 1 / Float(channels)
                    for i in 0..<count {
                        var s: Float = 0
                        for c in 0..<channels { s += samples[i * channels + c] }
                        m[i] = s * scale
                    }
                }
            }
            if profile { timings[.frames, default: 0] += (now() - started) / 2; timings[.tempo, default: 0] += (now() - started) / 2 }
        }
        mono.withUnsafeBufferPointer { m in
            let block = AudioBlock(interleaved: samples, mono: UnsafeBufferPointer(rebasing: m[0..<(needsMono ? count : 0)]),
                                   frames: count, channels: channels)
            run(.loudness, loudness, block)
            run(.silence, silence, block)
            run(.tempo, tempo, block)
            run(.frames, frames, block)
        }
    }

    private func run<A: Analyzer>(_ kind: AnalysisOptions.Kind, _ analyzer: A?, _ block: AudioBlock) {
        guard let analyzer else { return }
        if profile {
            let started = now()
            analyzer.consume(block)
            timings[kind, default: 0] += now() - started
        } else {
            analyzer.consume(block)
        }
    }

    public func finish() -> TrackAnalysis {
        func timed<T>(_ kind: AnalysisOptions.Kind, _ body: () -> T) -> T {
            let started = profile ? now() : 0
            let result = body()
            if profile { timings[kind, default: 0] += now() - started }
            return result
        }
        return TrackAnalysis(loudness: loudness.map { a in timed(.loudness) { a.finish() } },
                             silence: silence.map { a in timed(.silence) { a.finish() } },
                             tempo: tempo.map { a in timed(.tempo) { a.finish() } },
                             frames: frames.map { a in timed(.frames) { a.finish() } },
                             frameCount: frameCount, timings: timings)
    }

    private func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
