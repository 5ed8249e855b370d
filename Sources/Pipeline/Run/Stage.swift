/// The stages a run can go through, in their fixed order.
public enum Stage: String, CaseIterable, Sendable, Codable {
    case tagfix, scan, tags, analyze
    /// The media servers' id maps (`navidrome import`, `jellyfin import`), refreshed for the AudioMuse-AI API.
    case navidromeImport = "navidrome-import", jellyfinImport = "jellyfin-import"
    case genres, report, playlists

    /// Stages that bring the index up to date themselves; the others read what earlier runs stored.
    public var fillsTheIndex: Bool { self == .tagfix || self == .scan || self == .tags || self == .analyze }
}
