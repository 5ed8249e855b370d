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
    ]

    public static func json(_ o: FileAnalysisOutcome) -> JSONValue {
        let a = o.analysis
        let ok = o.error == nil
        let loudness = a?.loudness
        let silence = a?.silence
        let tempo = a?.tempo
        let frames = a?.frames
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
            .from(frames?.fps),
            .from(frames?.bands),
            .from(frames?.count),
            .from(o.seconds, digits: 4),
        ]
        return .object(Array(zip(keys, values)))
    }
}
