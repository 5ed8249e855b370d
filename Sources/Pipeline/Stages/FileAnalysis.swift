import Analysis
import AudioDecoding
import Foundation

/// What decoding and analysing one file produced: the unit of work of `inspect`, `analyze` and `bench`.
public struct FileAnalysisOutcome: Sendable, Codable {
    public var path: String
    public var format: AudioFormat?
    /// Set when the file could not be decoded at all.
    public var error: String?
    /// The error is the file's place, not its bytes: it could not be stat'ed or opened (gone, no permission,
    /// on a disk not mounted), or the disk could not deliver its bytes (a read error: `FileReadCheck`). Nothing
    /// was learnt about the file, so nothing is stored and the next run tries again.
    public var unreachable = false
    /// Set when only part of the file decoded (truncated, corrupt data); results cover that part.
    public var damage: String?
    public var decodedFrames: Int64 = 0
    public var analysis: TrackAnalysis?
    /// Wall time spent decoding and analysing.
    public var seconds: Double = 0
    /// Non-finite samples replaced by zero.
    public var nonFiniteSamples = 0

    public var durationSeconds: Double? {
        guard let format, format.sampleRate > 0, error == nil else { return nil }
        return Double(decodedFrames) / Double(format.sampleRate)
    }
}

public enum FileAnalysis {
    static let chunkFrames = 4096

    /// Decodes `path` once and feeds every enabled analyzer (none when `analyze` is false: decode only).
    /// `framesSink`: where the visualiser frames go as they are made, instead of into the outcome.
    public static func run(path: String, options: AnalysisOptions, analyze: Bool = true,
                           profile: Bool = false, framesSink: FramesSink? = nil) -> FileAnalysisOutcome {
        let started = monotonicSeconds()
        var outcome = decodeAndAnalyze(path: path, options: options, analyze: analyze, profile: profile, framesSink: framesSink)
        outcome.seconds = monotonicSeconds() - started
        return outcome
    }

    private static func decodeAndAnalyze(path: String, options: AnalysisOptions, analyze: Bool,
                                         profile: Bool, framesSink: FramesSink?) -> FileAnalysisOutcome {
        var outcome = FileAnalysisOutcome(path: path)
        let decoder: any AudioDecoder
        do {
            decoder = try AudioDecoders.open(path: path)
        } catch let error as DecodeError {
            outcome.error = error.reason
            outcome.unreachable = error.kind == .unreadable
            return outcome
        } catch {
            outcome.error = "\(error)"
            return outcome
        }
        let format = decoder.format
        outcome.format = format
        let analyzer = analyze
            ? TrackAnalyzer(format: StreamFormat(sampleRate: format.sampleRate, channels: format.channels, speakers: format.speakers),
                            options: options, profile: profile, framesSink: framesSink)
            : nil
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: chunkFrames * format.channels)
        defer { buffer.deallocate() }
        while true {
            let n = decoder.read(into: buffer, frames: chunkFrames)
            if n == 0 { break }
            if format.floatSamples {
                outcome.nonFiniteSamples += sanitize(buffer, count: n * format.channels)
            }
            outcome.decodedFrames += Int64(n)
            analyzer?.consume(UnsafeBufferPointer(start: buffer, count: n * format.channels), frames: n)
        }
        if decoder.damage != nil || outcome.decodedFrames == 0, let failure = FileReadCheck.failure(path: path) {
            // Not the file's damage but the disk's: what decoded before it is no result to keep.
            outcome.error = failure
            outcome.unreachable = true
            return outcome
        }
        outcome.damage = decoder.damage
        if outcome.decodedFrames == 0 {
            outcome.error = decoder.damage.map { "no audio could be decoded (\($0))" } ?? "no audio frames in the file"
            return outcome
        }
        outcome.analysis = analyzer?.finish()
        return outcome
    }

    /// Replaces NaN and ±inf (possible in float WAV/AIFF) by silence; returns how many there were.
    static func sanitize(_ p: UnsafeMutablePointer<Float>, count: Int) -> Int {
        var bad = 0
        for i in 0..<count where !p[i].isFinite {
            p[i] = 0
            bad += 1
        }
        return bad
    }
}
