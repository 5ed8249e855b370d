/// The stages a run can go through, in their fixed order.
public enum Stage: String, CaseIterable, Sendable, Codable {
    case tagfix, scan, tags, analyze, genres, report, playlists

    /// Stages that bring the index up to date themselves; the others read what earlier runs stored.
    public var fillsTheIndex: Bool { self == .tagfix || self == .scan || self == .tags || self == .analyze }
}
