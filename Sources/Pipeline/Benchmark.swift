import Analysis
import Foundation

/// `spindle bench`: decode-only against full-analysis throughput over the same files in one run, each
/// analyzer's share, and the parallel speed-up.
public struct BenchmarkReport: Sendable {
    public var files = 0
    public var audioSeconds = 0.0
    public var decodeSeconds = 0.0
    public var fullSeconds = 0.0
    public var analyzerSeconds: [AnalysisOptions.Kind: Double] = [:]
    public var jobs = 1
    public var parallelSeconds: Double?
    public var peakRSSMB = 0.0
    public var failed: [String] = []

    public var decodeSpeed: Double { audioSeconds / max(decodeSeconds, 1e-9) }
    public var fullSpeed: Double { audioSeconds / max(fullSeconds, 1e-9) }

    public static func run(files: [String], options: AnalysisOptions, jobs: Int, rounds: Int = 1) -> BenchmarkReport {
        var r = BenchmarkReport()
        r.jobs = jobs
        var usable: [String] = []
        for file in files {
            // Warm the page cache and drop what cannot be decoded, so both passes read the same audio.
            let probe = FileAnalysis.run(path: file, options: options, analyze: false)
            if probe.error == nil { usable.append(file) } else { r.failed.append("\(file): \(probe.error!)") }
        }
        r.files = usable.count
        for _ in 0..<max(1, rounds) {
            for file in usable {
                let decode = FileAnalysis.run(path: file, options: options, analyze: false)
                r.decodeSeconds += decode.seconds
                r.audioSeconds += decode.durationSeconds ?? 0
                let full = FileAnalysis.run(path: file, options: options, analyze: true, profile: true)
                r.fullSeconds += full.seconds
                for (kind, t) in full.analysis?.timings ?? [:] { r.analyzerSeconds[kind, default: 0] += t }
            }
        }
        if jobs > 1 {
            let started = monotonicSeconds()
            for _ in 0..<max(1, rounds) {
                try? ParallelWork.run(usable, jobs: jobs, work: { file in
                    FileAnalysis.run(path: file, options: options).seconds
                }, deliver: { _, _ in })
            }
            r.parallelSeconds = monotonicSeconds() - started
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        r.peakRSSMB = Double(usage.ru_maxrss) / 1024
        return r
    }

    public func text() -> String {
        var lines = [
            String(format: "files: %d, audio: %.1f s", files, audioSeconds),
            String(format: "decode only:    %8.1f× real time (%.3f s)", decodeSpeed, decodeSeconds),
            String(format: "full analysis:  %8.1f× real time (%.3f s) = %.0f%% of decode-only throughput",
                   fullSpeed, fullSeconds, 100 * fullSpeed / max(decodeSpeed, 1e-9)),
        ]
        for kind in AnalysisOptions.Kind.allCases {
            let t = analyzerSeconds[kind] ?? 0
            lines.append(String(format: "  %-9@ %6.1f%% of full-analysis time (%.0f× real time alone)", kind.rawValue as NSString,
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
        pairs.append(("analyzer_share", .object(AnalysisOptions.Kind.allCases.map {
            ($0.rawValue, .from((analyzerSeconds[$0] ?? 0) / max(fullSeconds, 1e-9), digits: 4))
        })))
        pairs.append(("jobs", .from(jobs)))
        pairs.append(("parallel_x_realtime", .from(parallelSeconds.map { audioSeconds / max($0, 1e-9) }, digits: 1)))
        pairs.append(("parallel_speedup", .from(parallelSeconds.map { fullSeconds / max($0, 1e-9) }, digits: 3)))
        pairs.append(("peak_rss_mb", .from(peakRSSMB, digits: 1)))
        return .object(pairs)
    }
}
