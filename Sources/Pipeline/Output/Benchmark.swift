import Analysis
import Foundation
import Library

/// `spindle bench`: decode-only against full-analysis throughput over the same files in one run, each
/// analyzer's share, and the parallel speed-up.
public struct BenchmarkReport: Sendable {
    public var files = 0
    public var audioSeconds = 0.0
    public var decodeSeconds = 0.0
    public var fullSeconds = 0.0
    /// Seconds in each analyzer by name, and in the mono mix they share (`TrackAnalyzer.monoMix`).
    public var analyzerSeconds: [String: Double] = [:]
    public var jobs = 1
    public var parallelSeconds: Double?
    public var peakRSSMB = 0.0
    public var failed: [String] = []

    public var decodeSpeed: Double { audioSeconds / max(decodeSeconds, 1e-9) }
    public var fullSpeed: Double { audioSeconds / max(fullSeconds, 1e-9) }

    /// Measures `files` in worker processes, as `analyze` runs them: each round decodes every file once
    /// without and once with analysis on one worker, then (with `jobs` > 1) analyses them all on `jobs`.
    public static func run(files: [String], settings: Settings, rounds: Int = 1) throws -> BenchmarkReport {
        var r = BenchmarkReport()
        r.jobs = settings.jobs
        // Warm the page cache and drop what cannot be decoded, so both passes read the same audio.
        var usable: [String] = []
        for probe in try FileJobs.run(files, kind: .decode, settings: settings, jobs: 1) {
            if let error = probe.error { r.failed.append("\(probe.path): \(error)") } else { usable.append(probe.path) }
        }
        r.files = usable.count
        for _ in 0..<max(1, rounds) {
            for decode in try FileJobs.run(usable, kind: .decode, settings: settings, jobs: 1) {
                r.decodeSeconds += decode.seconds
                r.audioSeconds += decode.durationSeconds ?? 0
            }
            for full in try FileJobs.run(usable, kind: .analyze, settings: settings, jobs: 1, profile: true) {
                r.fullSeconds += full.seconds
                for (name, t) in full.analysis?.timings ?? [:] { r.analyzerSeconds[name, default: 0] += t }
            }
        }
        if settings.jobs > 1 {
            let started = monotonicSeconds()
            for _ in 0..<max(1, rounds) { _ = try FileJobs.run(usable, kind: .analyze, settings: settings) }
            r.parallelSeconds = monotonicSeconds() - started
        }
        // The workers did the work: their peak, not the supervisor's.
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        r.peakRSSMB = Double(usage.ru_maxrss) / 1024
        return r
    }

    /// The audio files under `targets` (folders are walked as a library is, removing nothing; files are
    /// taken as given).
    public static func files(in targets: [String]) throws -> [String] {
        for target in targets where !FileManager.default.fileExists(atPath: target) {
            throw ConfigurationError("\(target) does not exist")
        }
        let files = try FileJobs.expandingFolders(targets)
        // A folder without audio comes back as itself.
        let listed = Set(files)
        if let folder = targets.first(where: { listed.contains($0) && FileJobs.isFolder($0) }) {
            throw ConfigurationError("no audio files found under \(folder)")
        }
        guard !files.isEmpty else { throw ConfigurationError("no audio files found") }
        return files
    }

    /// Each analyzer's own time, then the mono mix the ones that read it share (never split between them).
    static var timingNames: [String] { AnalyzerRegistry.names + [TrackAnalyzer.monoMix] }

    public func text() -> String {
        var lines = [
            String(format: "files: %d, audio: %.1f s", files, audioSeconds),
            String(format: "decode only:    %8.1f× real time (%.3f s)", decodeSpeed, decodeSeconds),
            String(format: "full analysis:  %8.1f× real time (%.3f s) = %.0f%% of decode-only throughput",
                   fullSpeed, fullSeconds, 100 * fullSpeed / max(decodeSpeed, 1e-9)),
        ]
        for name in Self.timingNames where analyzerSeconds[name] != nil {
            let t = analyzerSeconds[name] ?? 0
            lines.append(String(format: "  %-9@ %6.1f%% of full-analysis time (%.0f× real time alone)", name as NSString,
                                100 * t / max(fullSeconds, 1e-9), audioSeconds / max(t, 1e-9)))
        }
        let analysis = analyzerSeconds.values.reduce(0, +)
        lines.append(String(format: "  %-9@ %6.1f%% (decoding and the decode loop)", "decode" as NSString,
                            100 * (fullSeconds - analysis) / max(fullSeconds, 1e-9)))
        if let p = parallelSeconds {
            lines.append(String(format: "full analysis, %d jobs: %.1f× real time, %.2f× one job", jobs,
                                audioSeconds / max(p, 1e-9), fullSeconds / max(p, 1e-9)))
        }
        lines.append(String(format: "peak RSS: %.1f MB", peakRSSMB))
        for f in failed { lines.append("not decodable: \(f)") }
        return lines.joined(separator: "\n")
    }

    public func json() -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("files", .from(files)), ("audio_seconds", .from(audioSeconds, digits: 3)),
            ("decode_seconds", .from(decodeSeconds)), ("full_seconds", .from(fullSeconds)),
            ("decode_x_realtime", .from(decodeSpeed, digits: 1)), ("full_x_realtime", .from(fullSpeed, digits: 1)),
            ("full_vs_decode", .from(fullSpeed / max(decodeSpeed, 1e-9), digits: 4)),
        ]
        pairs.append(("analyzer_share", .object(Self.timingNames.filter { analyzerSeconds[$0] != nil }.map {
            ($0, .from((analyzerSeconds[$0] ?? 0) / max(fullSeconds, 1e-9), digits: 4))
        })))
        pairs.append(("jobs", .from(jobs)))
        pairs.append(("parallel_x_realtime", .from(parallelSeconds.map { audioSeconds / max($0, 1e-9) }, digits: 1)))
        pairs.append(("parallel_speedup", .from(parallelSeconds.map { fullSeconds / max($0, 1e-9) }, digits: 3)))
        pairs.append(("peak_rss_mb", .from(peakRSSMB, digits: 1)))
        return .object(pairs)
    }
}
