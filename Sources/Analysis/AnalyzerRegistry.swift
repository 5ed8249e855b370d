/// One analyzer as the decode loop sees it: its name (what `--only` and `[analysis] enabled` take), its own
/// version (bumped when its results could change for the same audio: only its own results go stale),
/// whether it reads the mono mix, the outputs it owns, and how to build it for a stream.
public struct AnalyzerEntry: Sendable {
    public let name: String
    public let version: Int
    public let needsMono: Bool
    /// The names of its results (analysis columns, named as in `inspect --json`; `vis_frames` is the blob).
    public let outputs: [String]
    let make: @Sendable (StreamFormat, AnalysisOptions, FramesSink?) -> RunningAnalyzer

    /// `values` turns the analyzer's typed result into named outputs, each a key of `outputs`.
    public init<A: Analyzer>(name: String, version: Int, needsMono: Bool, outputs: [String],
                             make: @escaping @Sendable (StreamFormat, AnalysisOptions) -> A,
                             values: @escaping @Sendable (A.Output) -> [String: AnalysisValue?]) {
        self.init(name: name, version: version, needsMono: needsMono, outputs: outputs,
                  make: { format, options, _ in make(format, options) }, values: values)
    }

    /// For an analyzer that writes its growing output to the run's `FramesSink`, when there is one.
    public init<A: Analyzer>(name: String, version: Int, needsMono: Bool, outputs: [String],
                             make: @escaping @Sendable (StreamFormat, AnalysisOptions, FramesSink?) -> A,
                             values: @escaping @Sendable (A.Output) -> [String: AnalysisValue?]) {
        self.name = name
        self.version = version
        self.needsMono = needsMono
        self.outputs = outputs
        self.make = { format, options, sink in
            let analyzer = make(format, options, sink)
            return RunningAnalyzer(consume: analyzer.consume, finish: { values(analyzer.finish()).compactMapValues { $0 } })
        }
    }
}

/// An analyzer at work on one stream, its result type erased.
struct RunningAnalyzer {
    let consume: (AudioBlock) -> Void
    let finish: () -> [String: AnalysisValue]
}

/// Every analyzer, in the order they see each block. Adding one: a file with the analyzer and its `entry`,
/// and one line here (plus a migration for its columns).
public enum AnalyzerRegistry {
    public static let all: [AnalyzerEntry] = [
        LoudnessMeter.entry,
        SilenceDetector.entry,
        TempoEstimator.entry,
        SpectrumFrameAnalyzer.entry,
        FeatureAnalyzer.entry,
        TagAnalyzer.entry,
    ]

    public static var names: [String] { all.map(\.name) }

    /// What runs when nothing is chosen: every analyzer but the tagger, which runs only once its weights are
    /// found (`Settings` adds it then).
    public static var defaultNames: Set<String> { Set(names).subtracting([TagAnalyzer.entry.name]) }

    public static func entry(_ name: String) -> AnalyzerEntry? { all.first { $0.name == name } }

    /// Every analyzer's current version, by name.
    public static var versions: [String: Int] { Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0.version) }) }
}
