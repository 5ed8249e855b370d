import Analysis
import Foundation

/// The `inspect --json` line of one file: exactly DESIGN's keys, in DESIGN's order.
public enum InspectReport {
    public static let keys = [
        "path", "status", "error", "codec", "duration_s", "sample_rate", "channels",
        "bpm", "bpm_confidence", "first_beat_s",
        "lufs_integrated", "loudness_range_lu", "true_peak_dbtp", "sample_peak_dbfs", "replaygain_track_gain_db",
        "lead_silence_end_s", "trail_silence_start_s", "is_silent",
        "frames_fps", "frames_bands", "frames_count", "seconds",
        "key", "key_strength", "bpm_alternative", "top_tags",
    ]

    public static func json(_ o: FileAnalysisOutcome) -> JSONValue {
        let a = o.analysis
        let ok = o.error == nil
        let loudness = a?.loudness
        let silence = a?.silence
        let tempo = a?.tempo
        let frames = a?.values
        var error = o.error
        if ok, let damage = o.damage { error = "partial: \(damage)" }
        let values: [JSONValue] = [
            .string(o.path),
            .string(ok ? "ok" : "error"),
            .from(error),
            .from(o.format?.codec),
            .from(o.durationSeconds),
            .from(ok ? o.format?.sampleRate : nil),
            .from(ok ? o.format?.channels : nil),
            .from(tempo?.bpm, digits: 2),
            .from(tempo.map { $0.confidence }, digits: 3),
            .from(tempo?.firstBeat, digits: 3),
            .from(loudness?.integratedLUFS, digits: 2),
            .from(loudness?.rangeLU, digits: 2),
            .from(loudness?.truePeakDBTP, digits: 2),
            .from(loudness?.samplePeakDBFS, digits: 2),
            .from(loudness?.replayGainDB, digits: 2),
            .from(silence?.leadSilenceEnd, digits: 4),
            .from(silence?.trailSilenceStart, digits: 4),
            .from(silence?.isSilent),
            .from(frames?["frames_fps"]?.double),
            .from(frames?["frames_bands"]?.int),
            .from(frames?["frames_count"]?.int),
            .from(o.seconds, digits: 4),
            .from(a?.key?.key.name),
            .from(a?.key?.strength, digits: 3),
            .from(tempo?.alternative, digits: 2),
            .topTags(a?.tagProbabilities),
        ]
        return .object(Array(zip(keys, values)))
    }

    /// Decodes and analyses `files` in worker processes (a file that crashes a decoder costs that file only),
    /// a folder standing for the audio files under it; one outcome per file, in the order given, each also
    /// handed to `each` as soon as it and every earlier one are in (see `FileJobs.run`).
    public static func inspect(_ files: [String], settings: Settings,
                               each: (FileAnalysisOutcome) throws -> Void = { _ in }) throws -> [FileAnalysisOutcome] {
        try FileJobs.run(try FileJobs.expandingFolders(files), kind: .analyze, settings: settings, each: each)
    }

    /// The outcome for a person: one line per analyzer that ran.
    public static func text(_ o: FileAnalysisOutcome) -> String {
        let path = TerminalText.safe(o.path)
        guard o.error == nil, let format = o.format else { return "\(path)\n  error: \(TerminalText.safe(o.error ?? "unknown"))" }
        func f(_ v: Double?, _ unit: String, _ digits: Int = 2) -> String {
            v.map { String(format: "%.\(digits)f %@", $0, unit) } ?? "—"
        }
        var lines = ["\(path)",
                     "  format:     \(format.codec), \(format.sampleRate) Hz, \(format.channels) ch, \(f(o.durationSeconds, "s", 3))"]
        if let damage = o.damage { lines.append("  partial:    \(TerminalText.safe(damage))") }
        if let t = o.analysis?.tempo {
            let runnerUp = t.alternative.map { ", or \(f($0, "BPM")) at another metrical level" } ?? ""
            lines.append(t.bpm == nil ? "  tempo:      none: no onsets stand out as beats (a steady sound, noise, silence, or under 4 s)"
                : "  tempo:      \(f(t.bpm, "BPM")) (confidence \(String(format: "%.2f", t.confidence))\(runnerUp)), first beat \(f(t.firstBeat, "s", 3))")
        }
        if let p = o.analysis?.tagProbabilities {
            lines.append("  tags:       " + MusicnnTags.top(p, count: 5).map { String(format: "%@ %.2f", $0.tag, $0.probability) }.joined(separator: ", "))
        }
        if let l = o.analysis?.loudness {
            lines.append("  loudness:   \(f(l.integratedLUFS, "LUFS")), range \(f(l.rangeLU, "LU")), true peak \(f(l.truePeakDBTP, "dBTP")), sample peak \(f(l.samplePeakDBFS, "dBFS")), ReplayGain \(f(l.replayGainDB, "dB"))")
        }
        if let s = o.analysis?.silence {
            lines.append(s.isSilent ? "  silence:    the whole file is silent"
                : "  silence:    sound from \(f(s.leadSilenceEnd, "s", 3)) to \(f(s.trailSilenceStart, "s", 3))")
        }
        if let k = o.analysis?.key {
            lines.append("  key:        \(k.key.name) (strength \(String(format: "%.2f", k.strength)))")
        }
        if let v = o.analysis?.values, let count = v["frames_count"]?.int, let bands = v["frames_bands"]?.int,
           let fps = v["frames_fps"]?.double {
            lines.append("  visualiser: \(count) frames × \(bands) bands at \(String(format: "%g", fps)) fps")
        }
        lines.append(String(format: "  time:       %.3f s", o.seconds))
        return lines.joined(separator: "\n")
    }
}
