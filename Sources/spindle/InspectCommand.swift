import Analysis
import ArgumentParser
import Foundation
import Pipeline

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Decode and analyse files directly, without a database.",
        discussion: """
            With --json, one JSON object per file and line, with exactly these keys (null where not \
            applicable): \(InspectReport.keys.joined(separator: ", ")).
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "One JSON object per line.") var json = false
    @Option(help: "Files analysed in parallel (default: number of cores).") var jobs: Int?
    @Option(help: ArgumentHelp("Only these analyzers: loudness,silence,tempo,frames.", valueName: "list"))
    var only: String?
    @Argument(help: "Audio files.") var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one file") }
    }

    func run() throws {
        try runCommand {
            let settings = try global.settings(jobs: jobs, only: only.map { [$0] })
            let outcomes = InspectRunner.run(files, settings: settings)
            for outcome in outcomes {
                print(json ? InspectReport.json(outcome).serialized() : Self.describe(outcome))
            }
            return outcomes.contains { $0.error != nil } ? 3 : 0
        }
    }

    static func describe(_ o: FileAnalysisOutcome) -> String {
        guard o.error == nil, let format = o.format else { return "\(o.path)\n  error: \(o.error ?? "unknown")" }
        func f(_ v: Double?, _ unit: String, _ digits: Int = 2) -> String {
            v.map { String(format: "%.\(digits)f %@", $0, unit) } ?? "—"
        }
        var lines = ["\(o.path)",
                     "  format:     \(format.codec), \(format.sampleRate) Hz, \(format.channels) ch, \(f(o.durationSeconds, "s", 3))"]
        if let damage = o.damage { lines.append("  partial:    \(damage)") }
        if let t = o.analysis?.tempo {
            lines.append("  tempo:      \(f(t.bpm, "BPM")) (confidence \(String(format: "%.2f", t.confidence))), first beat \(f(t.firstBeat, "s", 3))")
        }
        if let l = o.analysis?.loudness {
            lines.append("  loudness:   \(f(l.integratedLUFS, "LUFS")), range \(f(l.rangeLU, "LU")), true peak \(f(l.truePeakDBTP, "dBTP")), sample peak \(f(l.samplePeakDBFS, "dBFS")), ReplayGain \(f(l.replayGainDB, "dB"))")
        }
        if let s = o.analysis?.silence {
            lines.append(s.isSilent ? "  silence:    the whole file is silent"
                : "  silence:    sound from \(f(s.leadSilenceEnd, "s", 3)) to \(f(s.trailSilenceStart, "s", 3))")
        }
        if let v = o.analysis?.frames {
            lines.append("  visualiser: \(v.count) frames × \(v.bands) bands at \(String(format: "%g", v.fps)) fps")
        }
        lines.append(String(format: "  time:       %.3f s", o.seconds))
        return lines.joined(separator: "\n")
    }
}

/// Analyses files in parallel and returns outcomes in the order given.
enum InspectRunner {
    static func run(_ files: [String], settings: Settings) -> [FileAnalysisOutcome] {
        let options = settings.analysis
        var outcomes = [FileAnalysisOutcome?](repeating: nil, count: files.count)
        try? ParallelWork.run(Array(files.indices), jobs: settings.jobs, work: { i in
            FileAnalysis.run(path: files[i], options: options)
        }, deliver: { i, outcome in outcomes[i] = outcome })
        return outcomes.map { $0! }
    }
}
