import Foundation
import Library
import Jellyfin
import Navidrome
import Reports
import Tagging

/// The tag batch a run starts with (stage `tagfix`).
public struct TagfixRequest: Sendable {
    public enum Source: Sendable {
        case edits([(String, TagEdit)])
        case file(String)
        case fixers([TagFixer], paths: [String]?)
        /// `minBPMConfidence`: a tempo whose `bpm_confidence` is under it is not written (0 writes every one).
        /// `minMoodProbability`: a mood word the tagger gives under it is not written to MOOD.
        case analysis(AnalysisTags.Fields, paths: [String]?, minBPMConfidence: Double = 0, minMoodProbability: Double = 0.1)
        case undo(batch: Int64?)

        /// Whether someone typed the keys (`tags set`, `tags apply`), so they are checked against TagLib's names;
        /// fixers and analysis tags name theirs on purpose (KEY beside INITIALKEY where tags are free-form).
        var keysTyped: Bool {
            switch self {
            case .edits, .file: return true
            case .fixers, .analysis, .undo: return false
            }
        }
    }
    public var source: Source
    public var dryRun = false
    public var allowCustom = false
    /// 3 or 4 to write MP3 tags as that ID3v2 version; 0 keeps each file's own.
    public var id3v2Version = 0
    public var command: String

    public init(source: Source, command: String, dryRun: Bool = false, allowCustom: Bool = false, id3v2Version: Int = 0) {
        self.source = source
        self.command = command
        self.dryRun = dryRun
        self.allowCustom = allowCustom
        self.id3v2Version = id3v2Version
    }
}

/// What a run is asked to do.
public struct RunRequest: Sendable {
    public var kind: String
    public var stages: [Stage]
    public var force: Bool
    /// Restrict analysis to these files (relative to the root or absolute inside it).
    public var paths: [String]?
    /// The report stage's format and file (standard output when nil).
    public var reportFormat: ReportFormat = .html
    public var reportOutput: String?
    /// The playlists stage's folder (else the settings' or the library's "Spindle Playlists").
    public var playlistsFolder: String?
    public var tagfix: TagfixRequest?
    /// Ask a Subsonic server to rescan when the tag batch changed files.
    public var rescan: SubsonicClient?
    /// The navidrome-import stage's database, and the jellyfin-import stage's server.
    public var navidromeDB: String?
    public var jellyfin: JellyfinClient?
    /// Only this shard of the library (`--shard K/N`): its files enter this database, nothing else does.
    public var shard: Shard?

    /// Takes `--shard K/N`; nil leaves the whole library.
    public mutating func shard(_ text: String?) throws {
        shard = try text.map(Shard.init(parsing:))
    }

    public init(kind: String, stages: [Stage], force: Bool = false, paths: [String]? = nil) {
        self.kind = kind
        self.stages = stages
        self.force = force
        self.paths = paths
    }
}
