import CBLAS
import Foundation

/// The tagging network's view of a track: MusiCNN (MSD) run on up to `taggerPatches` 3-second patches spread over
/// it; the tag probabilities and the embedding are the means over those patches. Needs the weights
/// (`AnalysisOptions.taggerWeights`, fetched at install); without them it is not enabled.
public final class TagAnalyzer: Analyzer {
    public struct Result: Sendable {
        public var tags: [Float]?
        public var embedding: [Float]?
    }

    private let patches: MelPatches
    private let network: MusicnnNetwork?

    init(format: StreamFormat, options: AnalysisOptions) {
        patches = MelPatches(sampleRate: format.sampleRate, keep: options.taggerPatches)
        network = options.taggerWeights.flatMap { try? TaggerModel.network(at: $0) }
    }

    public func consume(_ block: AudioBlock) { patches.consume(block.mono) }

    public func finish() -> Result {
        let kept = patches.finish()
        guard let network, !kept.isEmpty else { return Result() }
        var tags = [Float](repeating: 0, count: MusicnnNetwork.tagCount)
        var embedding = [Float](repeating: 0, count: MusicnnNetwork.embeddingWidth)
        for patch in kept {
            let out = network.run(patch)
            for i in tags.indices { tags[i] += out.tags[i] / Float(kept.count) }
            for i in embedding.indices { embedding[i] += out.embedding[i] / Float(kept.count) }
        }
        return Result(tags: tags, embedding: embedding)
    }

    public static let entry = AnalyzerEntry(
        name: "tagger", version: 1, needsMono: true, outputs: ["tag_probabilities", "embedding"],
        make: { format, options in TagAnalyzer(format: format, options: options) },
        values: { r in
            ["tag_probabilities": r.tags.map { .bytes(FloatBlob.encode($0)) },
             "embedding": r.embedding.map { .bytes(FloatBlob.encode($0)) }]
        })
}

extension TrackAnalysis {
    /// MusiCNN's 50 tag probabilities (`MusicnnTags.names` order), when the tagger ran.
    public var tagProbabilities: [Float]? { values["tag_probabilities"]?.data.flatMap { FloatBlob.decode($0) } }
    public var embedding: [Float]? { values["embedding"]?.data.flatMap { FloatBlob.decode($0) } }
}

/// The network, read once per process from its weight file. OpenBLAS runs on one thread: Spindle already runs
/// one analysis worker per core.
public enum TaggerModel {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var loaded: [String: MusicnnNetwork] = [:]

    public static func network(at path: String) throws -> MusicnnNetwork {
        lock.lock()
        defer { lock.unlock() }
        if let network = loaded[path] { return network }
        openblas_set_num_threads(1)
        let network = try MusicnnNetwork(weights: try NetworkWeights(contentsOf: path))
        loaded[path] = network
        return network
    }

    /// Where the weights are looked for: `SPINDLE_MODELS_DIR`, then `$XDG_DATA_HOME/spindle/models` (by default
    /// `~/.local/share/spindle/models`), then `/usr/local/share/spindle/models` and `/usr/share/spindle/models`.
    public static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let file = "musicnn-msd.weights"
        var folders: [String] = []
        if let dir = environment["SPINDLE_MODELS_DIR"], !dir.isEmpty { folders.append(dir) }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        folders += [data + "/spindle/models", "/usr/local/share/spindle/models", "/usr/share/spindle/models"]
        return folders.map { $0 + "/" + file }
    }

    public static let howToEnable = "run scripts/fetch-musicnn.py to fetch MusiCNN's weights (ISC licence) from PyPI"
}
