/// Which analyzers run and their parameters. The defaults here are the only place these defaults live.
public struct AnalysisOptions: Sendable, Equatable, Codable {
    /// Names of the analyzers to run (`AnalyzerRegistry`); all but the tagger by default.
    public var enabled: Set<String> = AnalyzerRegistry.defaultNames
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
    /// The tagging network's weight file; nil: the tagger is off (and not in `enabled`).
    public var taggerWeights: String?
    /// Patches of 3 s the tagger runs on, spread over the track.
    public var taggerPatches: Int = 6

    public init() {}
}
