import Analysis
import Foundation
import Store
import TOMLKit

/// Problems with options, environment or the config file: exit code 2.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The `--config` file (TOML). Every key is optional; docs/configuration.md lists them.
struct ConfigFile: Decodable {
    var library: String?
    var database: String?
    var jobs: Int?
    var analysis: AnalysisSection?
    var runtime: RuntimeSection?
    var playlists: PlaylistsSection?
    var scan: ScanSection?

    struct PlaylistsSection: Decodable {
        var dir: String?
    }

    struct ScanSection: Decodable {
        var forget_missing_after_days: Int?
    }

    struct RuntimeSection: Decodable {
        init() {}

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            worker_timeout_base_s = c.number(.worker_timeout_base_s)
            worker_timeout_per_audio_s = c.number(.worker_timeout_per_audio_s)
            worker_timeout_max_s = c.number(.worker_timeout_max_s)
        }
        enum CodingKeys: String, CodingKey {
            case worker_timeout_base_s, worker_timeout_per_audio_s, worker_timeout_max_s
        }
        var worker_timeout_base_s: Double?
        var worker_timeout_per_audio_s: Double?
        var worker_timeout_max_s: Double?
    }

    struct AnalysisSection: Decodable {
        init() {}

        // TOMLKit does not read an integer (`-60`) as a Double: accept both.
        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            enabled = try c.decodeIfPresent([String].self, forKey: .enabled)
            silence_threshold_db = c.number(.silence_threshold_db)
            min_bpm = c.number(.min_bpm)
            max_bpm = c.number(.max_bpm)
            frames_fps = c.number(.frames_fps)
            frames_bands = try c.decodeIfPresent(Int.self, forKey: .frames_bands)
            tagger_patches = try c.decodeIfPresent(Int.self, forKey: .tagger_patches)
        }
        enum CodingKeys: String, CodingKey {
            case enabled, silence_threshold_db, min_bpm, max_bpm, frames_fps, frames_bands, tagger_patches
        }
        var enabled: [String]?
        var silence_threshold_db: Double?
        var min_bpm: Double?
        var max_bpm: Double?
        var frames_fps: Double?
        var frames_bands: Int?
        var tagger_patches: Int?
    }

    /// `top`'s values where it has them, `bottom`'s elsewhere.
    static func layered(_ top: ConfigFile?, over bottom: ConfigFile?) -> ConfigFile? {
        guard let top else { return bottom }
        guard let bottom else { return top }
        var merged = bottom
        merged.library = top.library ?? bottom.library
        merged.database = top.database ?? bottom.database
        merged.jobs = top.jobs ?? bottom.jobs
        var analysis = bottom.analysis ?? AnalysisSection()
        if let a = top.analysis {
            analysis.enabled = a.enabled ?? analysis.enabled
            analysis.silence_threshold_db = a.silence_threshold_db ?? analysis.silence_threshold_db
            analysis.min_bpm = a.min_bpm ?? analysis.min_bpm
            analysis.max_bpm = a.max_bpm ?? analysis.max_bpm
            analysis.frames_fps = a.frames_fps ?? analysis.frames_fps
            analysis.frames_bands = a.frames_bands ?? analysis.frames_bands
        }
        merged.analysis = analysis
        var runtime = bottom.runtime ?? RuntimeSection()
        if let r = top.runtime {
            runtime.worker_timeout_base_s = r.worker_timeout_base_s ?? runtime.worker_timeout_base_s
            runtime.worker_timeout_per_audio_s = r.worker_timeout_per_audio_s ?? runtime.worker_timeout_per_audio_s
            runtime.worker_timeout_max_s = r.worker_timeout_max_s ?? runtime.worker_timeout_max_s
        }
        merged.runtime = runtime
        merged.playlists = PlaylistsSection(dir: top.playlists?.dir ?? bottom.playlists?.dir)
        merged.scan = ScanSection(forget_missing_after_days: top.scan?.forget_missing_after_days
                                  ?? bottom.scan?.forget_missing_after_days)
        return merged
    }

    static func load(path: String) throws -> ConfigFile {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError("cannot read config file \(path)")
        }
        try TOMLSchema.config.check(text: text, file: "config file \(path)")
        do {
            return try TOMLDecoder().decode(ConfigFile.self, from: text)
        } catch {
            throw ConfigurationError("config file \(path) is not valid: \(error)")
        }
    }
}

/// Settings in force for one command. Precedence: command line > environment > config file > defaults.
public struct Settings: Sendable {
    public var libraryPath: String?
    public var databasePath: String
    public var jobs: Int
    public var analysis: AnalysisOptions
    public var runtime = Runtime()
    /// Where `playlists write` and the playlists stage put their files (`[playlists] dir`).
    public var playlistsFolder: String?
    /// Said once by analyze, run and status when the tagger cannot run: why, and how to enable it.
    public var taggerNotice: String?
    /// Files missing this many days are forgotten by a scan or a merge (`[scan] forget_missing_after_days`;
    /// 0 keeps them for good). A month covers a folder moved out and back, a disk unplugged for the holidays.
    public var forgetMissingAfterDays = 30

    /// How long a worker may take on one file before it is killed: base + per-second-of-audio × length,
    /// capped, since a length comes from a header a crafted file can inflate.
    public struct Runtime: Sendable {
        public var timeoutBase: Double = 60
        public var timeoutPerAudioSecond: Double = 0.5
        /// Full analysis runs at hundreds of times real time: an hour covers a day-long recording.
        public var timeoutMax: Double = 3600

        public func timeout(audioSeconds: Double) -> Double {
            let length = audioSeconds.isFinite ? max(0, audioSeconds) : 0
            return min(timeoutMax, timeoutBase + timeoutPerAudioSecond * length)
        }
    }

    public struct Overrides: Sendable {
        public var database: String?
        public var library: String?
        public var config: String?
        public var jobs: Int?
        public var only: [String]?
        /// Settings from a pipeline file (`spindle run`).
        var pipeline: ConfigFile?
        public init(database: String? = nil, library: String? = nil, config: String? = nil, jobs: Int? = nil,
                    only: [String]? = nil) {
            self.database = database; self.library = library; self.config = config; self.jobs = jobs; self.only = only
        }
    }

    public static func resolve(_ cli: Overrides,
                               environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Settings {
        // Paths from TOML files and the environment reach no shell: "~/Music" there means the home folder.
        func path(_ s: String?) -> String? { s.map { expandingHome($0, environment: environment) } }
        let configPath = path(cli.config ?? environment["SPINDLE_CONFIG"])
        let configFile = try configPath.map(ConfigFile.load(path:))
        // A pipeline file's settings sit between the environment and the config file.
        let file = ConfigFile.layered(cli.pipeline, over: configFile)
        func nonEmpty(_ s: String?) -> String? { (s?.isEmpty ?? true) ? nil : path(s) }
        let library = nonEmpty(cli.library) ?? nonEmpty(environment["MUSIC_DIR"]) ?? nonEmpty(file?.library)
        let database = nonEmpty(cli.database) ?? nonEmpty(environment["SPINDLE_DB"]) ?? nonEmpty(file?.database)
            ?? SpindleDatabase.defaultPath(environment: environment)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jobs = cli.jobs ?? environment["SPINDLE_JOBS"].flatMap { Int($0) } ?? file?.jobs ?? cores
        guard jobs >= 1, jobs <= 256 else { throw ConfigurationError("jobs must be between 1 and 256 (got \(jobs))") }

        var options = AnalysisOptions()
        if let a = file?.analysis {
            if let v = a.silence_threshold_db { options.silenceThresholdDB = v }
            if let v = a.min_bpm { options.minBPM = v }
            if let v = a.max_bpm { options.maxBPM = v }
            if let v = a.frames_fps { options.framesPerSecond = v }
            if let v = a.frames_bands { options.frameBands = v }
            if let v = a.tagger_patches {
                guard (1...10_000).contains(v) else { throw ConfigurationError("tagger_patches must be from 1 to 10000 (got \(v))") }
                options.taggerPatches = v
            }
            if let list = a.enabled { options.enabled = try parseKinds(list) }
        }
        if let only = cli.only { options.enabled = try parseKinds(only) }
        let chosen = cli.only != nil || file?.analysis?.enabled != nil
        let tagger = TagAnalyzer.entry.name
        options.taggerWeights = TaggerModel.candidates(environment: environment).first { FileManager.default.isReadableFile(atPath: $0) }
        var taggerNotice: String?
        if options.taggerWeights == nil {
            if options.enabled.contains(tagger) {
                throw ConfigurationError("the tagger needs MusiCNN's weights, not found in \(TaggerModel.candidates(environment: environment).joined(separator: ", ")): \(TaggerModel.howToEnable)")
            }
            if !chosen { taggerNotice = "the tagger is off (no MusiCNN weights found): \(TaggerModel.howToEnable)" }
        } else if !chosen {
            options.enabled.insert(tagger)
        }
        try validate(options)
        var settings = Settings(libraryPath: library, databasePath: database, jobs: jobs, analysis: options)
        settings.taggerNotice = taggerNotice
        settings.playlistsFolder = nonEmpty(environment["SPINDLE_PLAYLISTS_DIR"]) ?? nonEmpty(file?.playlists?.dir)
        if let days = file?.scan?.forget_missing_after_days {
            guard days >= 0 else {
                throw ConfigurationError("forget_missing_after_days must be 0 (keep missing files for good) or a number of days")
            }
            settings.forgetMissingAfterDays = days
        }
        if let r = file?.runtime {
            if let v = r.worker_timeout_base_s { settings.runtime.timeoutBase = v }
            if let v = r.worker_timeout_per_audio_s { settings.runtime.timeoutPerAudioSecond = v }
            if let v = r.worker_timeout_max_s { settings.runtime.timeoutMax = v }
        }
        guard settings.runtime.timeoutBase > 0, settings.runtime.timeoutPerAudioSecond >= 0,
              settings.runtime.timeoutMax >= settings.runtime.timeoutBase else {
            throw ConfigurationError("worker timeouts must be positive, with worker_timeout_max_s ≥ worker_timeout_base_s")
        }
        return settings
    }

    /// `path` with a leading `~` or `~/` made the home folder (HOME), as a shell would have done.
    public static func expandingHome(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + path.dropFirst()
    }

    /// The `--only` help: every analyzer's name, from the registry.
    public static var onlyHelp: String { "Only these analyzers: \(AnalyzerRegistry.names.joined(separator: ","))." }

    /// Analyzer names (`--only tempo,frames`, `[analysis] enabled`), checked against the registry.
    public static func parseKinds(_ names: [String]) throws -> Set<String> {
        var kinds = Set<String>()
        for raw in names.flatMap({ $0.split(separator: ",") }) {
            let name = raw.trimmingCharacters(in: .whitespaces).lowercased()
            guard AnalyzerRegistry.entry(name) != nil else {
                throw ConfigurationError("unknown analyzer '\(name)' (known: \(AnalyzerRegistry.names.joined(separator: ", ")))")
            }
            kinds.insert(name)
        }
        guard !kinds.isEmpty else { throw ConfigurationError("no analyzer selected") }
        return kinds
    }

    static func validate(_ o: AnalysisOptions) throws {
        guard o.minBPM >= 20, o.maxBPM <= 400, o.minBPM * 1.5 <= o.maxBPM else {
            throw ConfigurationError("tempo range \(o.minBPM)–\(o.maxBPM) BPM is not usable (min ≥ 20, max ≤ 400, max ≥ 1.5 × min)")
        }
        guard o.silenceThresholdDB < 0, o.silenceThresholdDB > -140 else {
            throw ConfigurationError("silence threshold must be between -140 and 0 dBFS")
        }
        guard o.framesPerSecond > 0, o.framesPerSecond <= 120, o.frameBands >= 1, o.frameBands <= 256 else {
            throw ConfigurationError("visualiser frames need 0 < fps ≤ 120 and 1–256 bands")
        }
    }

    /// How long a missing file's row is kept (nil: for good).
    public var forgetMissingAfter: TimeInterval? {
        forgetMissingAfterDays > 0 ? Double(forgetMissingAfterDays) * 86_400 : nil
    }

    /// The library root, or a configuration error naming the three ways to give one.
    public func requireLibrary() throws -> String {
        guard let libraryPath else {
            throw ConfigurationError("no library folder: pass --library DIR, set MUSIC_DIR, or put library = \"DIR\" in the config file")
        }
        return libraryPath
    }
}

extension KeyedDecodingContainer {
    /// A TOML number written as an integer or as a float.
    func number(_ key: Key) -> Double? {
        if let d = try? decodeIfPresent(Double.self, forKey: key) { return d }
        if let i = try? decodeIfPresent(Int.self, forKey: key) { return Double(i) }
        return nil
    }
}
