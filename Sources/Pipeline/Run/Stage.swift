/// The stages a run can go through, in their fixed order.
public enum Stage: String, CaseIterable, Sendable, Codable {
    case tagfix, scan, tags, analyze, genres, report, playlists
}
