import Foundation
import GRDB

/// A Navidrome track id mapped to a library file (`fileId` nil: unresolved), with what was tried.
public struct NavidromeTrackRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "navidrome_tracks"
    public var navidromeId: String
    public var fileId: Int64?
    public var navidromePath: String
    public var strategy: Int?
    /// JSON array of the paths and queries tried.
    public var tried: String?
    public var importedAt: Date

    public init(navidromeId: String, fileId: Int64?, navidromePath: String, strategy: Int?, tried: String?,
                importedAt: Date = Date()) {
        self.navidromeId = navidromeId; self.fileId = fileId; self.navidromePath = navidromePath
        self.strategy = strategy; self.tried = tried; self.importedAt = importedAt
    }
}
