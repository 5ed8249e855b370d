/// Which analyzers run and their parameters. The defaults here are the only place these defaults live.
public struct AnalysisOptions: Sendable, Equatable, Codable {
    public enum Kind: String, CaseIterable, Sendable, Codable {
        case loudness, silence, tempo, frames
    }

    public var enabled: Set<Kind> = Set(Kind.allCases)
    /// Level below which audio counts as silence, in dBFS.
    public var silenceThresholdDB: Double = -60
    public var minBPM: Double = 60
    public var maxBPM: Double = 200
    public var framesPerSecond: Double = 30
    public var frameBands: Int = 32
    public var frameFFTSize: Int = 1024
    public var frameLowHz: Double = 30
    public var frameHighHz: Double = 16000
    /// dB range mapped onto one byte per band: `frameFloorDB` → 0, 0 dBFS → 255.
    public var frameFloorDB: Double = -80

    public init() {}

    /// Bumped whenever an analyzer's results could change for the same audio, so stored results go stale.
    /// 2: stores gating blocks (album loudness) and the spectral profile.
    public static let analyzerVersion = 2
}
