import Foundation
import Jellyfin
import Navidrome
import Reports
import TOMLKit

/// A pipeline file from `Pipelines/`: which stages to run and with what settings. Its `[pipeline]` table
/// names the stages; `library`, `database`, `jobs`, `[analysis]` and `[runtime]` are the config file's keys
/// and override it; the command line overrides them all.
public struct PipelineFile: Sendable {
    public var name: String
    public var description: String?
    public var stages: [Stage]
    public var force: Bool
    /// `[report]`: format (html, md, csv, json) and output file (relative to the working directory).
    public var reportFormat: ReportFormat = .html
    public var reportOutput: String?
    /// `[tagfix]`: an edits file and/or fixers.
    public var tagfix: TagfixRequest?
    /// `[navidrome]`: rescan after a tag batch changed files.
    public var rescan: SubsonicClient?
    /// `[navidrome] db`: the navidrome-import stage's database.
    public var navidromeDB: String?
    /// `[jellyfin]`: the jellyfin-import stage's server.
    public var jellyfin: JellyfinClient?
    var settings: ConfigFile?

    private struct Document: Decodable {
        var pipeline: Section
        struct Section: Decodable {
            var name: String?
            var description: String?
            var stages: [String]
            var force: Bool?
        }
        var report: ReportSection?
        struct ReportSection: Decodable {
            var format: String?
            var output: String?
        }
        var tagfix: TagfixSection?
        struct TagfixSection: Decodable {
            var edits: String?
            var fixers: [String]?
            var allow_custom: Bool?
            var dry_run: Bool?
        }
        var navidrome: NavidromeSection?
        struct NavidromeSection: Decodable {
            var url: String?
            var user: String?
            var password: String?
            var password_file: String?
            var token: String?
            var salt: String?
            var db: String?
        }
        var jellyfin: JellyfinSection?
        struct JellyfinSection: Decodable {
            var url: String?
            var api_key_file: String?
        }
    }

    /// The pipelines that come with Spindle (Pipelines/), by the names `run` takes.
    public static let shippedNames = "nightly, reanalyze, tagfix, genre-report"

    /// Reads the pipeline file at `path`, or, when nothing is there and `path` has no folder, the pipeline of
    /// that name that comes with Spindle (`spindle run nightly`, as `run --help` lists them).
    public static func load(path given: String) throws -> PipelineFile {
        let exists = FileManager.default.fileExists(atPath: given)
        let path = exists ? given : (DataFiles.pipeline(named: given) ?? given)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError(exists ? "cannot read pipeline file \(path)"
                : "no pipeline file \(given) (neither a file here nor one of Spindle's: \(shippedNames))")
        }
        try TOMLSchema.pipeline.check(text: text, file: "pipeline file \(path)")
        let document: Document
        let settings: ConfigFile
        do {
            document = try TOMLDecoder().decode(Document.self, from: text)
            settings = try TOMLDecoder().decode(ConfigFile.self, from: text)
        } catch {
            throw ConfigurationError("pipeline file \(path) is not valid: \(error)")
        }
        let stages = try Self.stages(document, path: path)
        let name = document.pipeline.name ?? ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        var file = PipelineFile(name: name, description: document.pipeline.description, stages: stages,
                                force: document.pipeline.force ?? false, settings: settings)
        if let r = document.report {
            if let f = r.format {
                guard let format = ReportFormat(rawValue: f) else {
                    throw ConfigurationError("pipeline \(path): report format must be html, md, csv or json")
                }
                file.reportFormat = format
            }
            file.reportOutput = r.output.map { Settings.expandingHome($0) }
        }
        if stages.contains(.tagfix) { file.tagfix = try tagfix(document, path: path, name: name) }
        if let n = document.navidrome, n.url != nil || n.user != nil { file.rescan = try rescanClient(n, path: path) }
        file.navidromeDB = document.navidrome?.db.map { Settings.expandingHome($0) }
        if stages.contains(.navidromeImport), file.navidromeDB == nil {
            throw ConfigurationError("pipeline \(path): the navidrome-import stage needs [navidrome] db = \"/path/to/navidrome.db\"")
        }
        if let j = document.jellyfin { file.jellyfin = try jellyfinClient(j, path: path) }
        if stages.contains(.jellyfinImport), file.jellyfin == nil {
            throw ConfigurationError("pipeline \(path): the jellyfin-import stage needs [jellyfin] url (and api_key_file, "
                + "or \(JellyfinKey.variable) in the environment)")
        }
        return file
    }

    /// The stages the file names, in their fixed order whatever order it lists them in.
    private static func stages(_ document: Document, path: String) throws -> [Stage] {
        var stages: [Stage] = []
        for name in document.pipeline.stages {
            if let stage = Stage(rawValue: name) {
                stages.append(stage)
            } else {
                let known = Stage.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError("pipeline \(path): unknown stage '\(name)' (known: \(known))")
            }
        }
        guard !stages.isEmpty else { throw ConfigurationError("pipeline \(path) has no stages") }
        return Stage.allCases.filter { stages.contains($0) }
    }

    /// The tagfix stage's batch: an edits file, or fixers.
    private static func tagfix(_ document: Document, path: String, name: String) throws -> TagfixRequest {
        guard let t = document.tagfix, t.edits != nil || !(t.fixers ?? []).isEmpty else {
            throw ConfigurationError("pipeline \(path): the tagfix stage needs [tagfix] edits = FILE or fixers = [...]")
        }
        if let edits = t.edits {
            return TagfixRequest(source: .file(Settings.expandingHome(edits)), command: "run \(name)", dryRun: t.dry_run ?? false,
                                 allowCustom: t.allow_custom ?? false)
        }
        let fixers = try (t.fixers ?? []).map { name -> TagFixer in
            guard let f = TagFixer(rawValue: name) else {
                throw ConfigurationError("pipeline \(path): unknown fixer \(name) (known: \(TagFixer.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return f
        }
        return TagfixRequest(source: .fixers(fixers, paths: nil), command: "run \(name)", dryRun: t.dry_run ?? false,
                             allowCustom: t.allow_custom ?? false)
    }

    /// The Subsonic server `[navidrome]` names, asked to rescan after a tag batch, with its credentials.
    private static func rescanClient(_ n: Document.NavidromeSection, path: String) throws -> SubsonicClient {
        guard let urlText = n.url, let url = URL(string: urlText), url.scheme == "http" || url.scheme == "https",
              let user = n.user else {
            throw ConfigurationError("pipeline \(path): [navidrome] needs url = \"http(s)://...\" and user")
        }
        let credentials: SubsonicClient.Credentials
        if let token = n.token, let salt = n.salt {
            SecretFiles.warnIfReadableByOthers(path, holding: "a Subsonic token", warn: logLine)
            credentials = .token(token: token, salt: salt)
        } else if let passwordFile = n.password_file {
            credentials = .password(try SecretFiles.password(file: Settings.expandingHome(passwordFile), warn: logLine))
        } else if let password = n.password {
            SecretFiles.warnIfReadableByOthers(path, holding: "a password", warn: logLine)
            credentials = .password(password)
        } else if let password = ProcessInfo.processInfo.environment[SecretFiles.passwordVariable], !password.isEmpty {
            credentials = .password(password)
        } else {
            throw ConfigurationError("pipeline \(path): [navidrome] needs password_file, password, or token with salt "
                + "(or \(SecretFiles.passwordVariable) in the environment)")
        }
        return SubsonicClient(baseURL: url, user: user, credentials: credentials)
    }

    /// The Jellyfin server `[jellyfin]` names, with its API key from `api_key_file` or the environment.
    private static func jellyfinClient(_ j: Document.JellyfinSection, path: String) throws -> JellyfinClient {
        guard let text = j.url, let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ConfigurationError("pipeline \(path): [jellyfin] needs url = \"http(s)://...\"")
        }
        do {
            return JellyfinClient(baseURL: url, apiKey: try JellyfinKey.read(file: j.api_key_file.map { Settings.expandingHome($0) },
                                                                            warn: logLine))
        } catch let error as JellyfinKey.Missing {
            throw ConfigurationError("pipeline \(path): \(error.description)")
        }
    }

    /// Settings for this pipeline: command line and environment first, then this file, then the config file.
    public func settings(_ cli: Settings.Overrides) throws -> Settings {
        var overrides = cli
        overrides.pipeline = settings
        return try Settings.resolve(overrides)
    }
}
