import Foundation

/// Everything one pass over a track produced: the named results of the analyzers that ran.
public struct TrackAnalysis: Sendable, Codable {
    /// Named results (`AnalyzerEntry.outputs`); a result an analyzer could not give is absent.
    public var values: [String: AnalysisValue]
    /// The analyzers that ran, with their versions: their results are current, the others untouched.
    public var versions: [String: Int]
    /// Frames consumed.
    public var frameCount: Int64
    /// Seconds spent in each analyzer by name, and in building the mono mix (`TrackAnalyzer.monoMix`),
    /// for `spindle bench`.
    public var timings: [String: Double]

    public init(values: [String: AnalysisValue], versions: [String: Int], frameCount: Int64, timings: [String: Double]) {
        self.values = values
        self.versions = versions
        self.frameCount = frameCount
        self.timings = timings
    }
}

/// Runs the enabled analyzers of the registry over one stream: the decode loop hands each block here once,
/// the mono mix is computed once per block when an enabled analyzer needs it, and `finish` collects the
/// named results.
public final class TrackAnalyzer {
    /// The timing key of the mono mix, which serves every analyzer that reads it.
    public static let monoMix = "mono mix"

    private let format: StreamFormat
    private let running: [(entry: AnalyzerEntry, analyzer: RunningAnalyzer)]
    private let needsMono: Bool
    private var mono: [Float] = []
    private var frameCount: Int64 = 0
    private let profile: Bool
    private var timings: [String: Double] = [:]

    /// `framesSink`: where the visualiser frames go as they are made, instead of into the result.
    public init(format: StreamFormat, options: AnalysisOptions, profile: Bool = false, framesSink: FramesSink? = nil) {
        self.format = format
        self.profile = profile
        running = AnalyzerRegistry.all.filter { options.enabled.contains($0.name) }.map { ($0, $0.make(format, options, framesSink)) }
        needsMono = running.contains { $0.entry.needsMono }
    }

    /// `samples` holds `count` interleaved frames.
    public func consume(_ samples: UnsafeBufferPointer<Float>, frames count: Int) {
        guard count > 0 else { return }
        frameCount += Int64(count)
        let channels = format.channels
        if needsMono {
            let started = profile ? now() : 0
            mix(samples, frames: count, channels: channels)
            if profile { timings[Self.monoMix, default: 0] += now() - started }
        }
        mono.withUnsafeBufferPointer { m in
            let block = AudioBlock(interleaved: samples, mono: UnsafeBufferPointer(rebasing: m[0..<(needsMono ? count : 0)]),
                                   frames: count, channels: channels)
            for (entry, analyzer) in running {
                if profile {
                    let started = now()
                    analyzer.consume(block)
                    timings[entry.name, default: 0] += now() - started
                } else {
                    analyzer.consume(block)
                }
            }
        }
    }

    private func mix(_ samples: UnsafeBufferPointer<Float>, frames count: Int, channels: Int) {
        if mono.count < count { mono = [Float](repeating: 0, count: count) }
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
    }

    public func finish() -> TrackAnalysis {
        var values: [String: AnalysisValue] = [:]
        var versions: [String: Int] = [:]
        for (entry, analyzer) in running {
            let started = profile ? now() : 0
            values.merge(analyzer.finish()) { _, new in new }
            if profile { timings[entry.name, default: 0] += now() - started }
            versions[entry.name] = entry.version
        }
        return TrackAnalysis(values: values, versions: versions, frameCount: frameCount, timings: timings)
    }

    private func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
