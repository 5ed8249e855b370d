import Analysis
import Foundation
import GRDB
import Store

/// Turns an outcome into what Store keeps: the `analysis` columns of the analyzers that ran (a null for a
/// result one could not give) and the frames blob. Store merges with what a partial run (`--only`) left.
public enum AnalysisStorage {
    /// The blob output that goes to `vis_frames` rather than to a column.
    static let framesOutput = "vis_frames"

    /// `framesFile`: where the worker left the frames instead of the outcome (`FramesHandoff.file`).
    static func write(_ outcome: FileAnalysisOutcome, fileId: Int64, contentKey: String?, options: AnalysisOptions,
                      framesFile: String? = nil) -> AnalysisWrite {
        let ran = AnalyzerRegistry.all.filter { options.enabled.contains($0.name) }
        var write = AnalysisWrite(fileId: fileId, contentKey: contentKey, status: outcome.error == nil ? .ok : .error,
                                  seconds: outcome.seconds,
                                  versions: Dictionary(uniqueKeysWithValues: ran.map { ($0.name, $0.version) }))
        write.error = outcome.error
        write.codec = outcome.format?.codec
        guard outcome.error == nil else { return write }
        write.damage = outcome.damage
        write.durationS = outcome.durationSeconds
        write.sampleRate = outcome.format?.sampleRate
        write.channels = outcome.format?.channels
        let values = outcome.analysis?.values ?? [:]
        for entry in ran {
            for name in entry.outputs where name != framesOutput {
                write.values[name] = values[name].map(databaseValue) ?? .null
            }
        }
        if ran.contains(where: { $0.name == FeatureAnalyzer.entry.name }) {
            write.featureDimensions = (FeatureAnalyzer.entry.version, FeatureVector.names)
        }
        if let frames = outcome.analysis?.frames {
            write.frames = VisFramesWrite(fileId: fileId, fps: frames.fps, bands: frames.bands, count: frames.count,
                                          source: .bytes(frames.data))
        } else if let framesFile, let fps = values["frames_fps"]?.double, let bands = values["frames_bands"]?.int,
                  let count = values["frames_count"]?.int {
            write.frames = VisFramesWrite(fileId: fileId, fps: fps, bands: bands, count: count, source: .file(path: framesFile))
        }
        return write
    }

    static func databaseValue(_ value: AnalysisValue) -> DatabaseValue {
        switch value {
        case .number(let d): return d.databaseValue
        case .integer(let i): return i.databaseValue
        case .flag(let b): return b.databaseValue
        case .text(let s): return s.databaseValue
        case .bytes(let data): return data.databaseValue
        }
    }

    /// Every enabled analyzer's current version: what a crash row counts as current for.
    public static func versions(_ options: AnalysisOptions) -> [String: Int] {
        AnalyzerRegistry.versions.filter { options.enabled.contains($0.key) }
    }
}
