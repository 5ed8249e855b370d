import Foundation
import GRDB

/// A Jellyfin item id (32 lowercase hex digits) mapped to a library file (`fileId` nil: unresolved), with what was tried.
public struct JellyfinTrackRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "jellyfin_tracks"
    public var jellyfinId: String
    public var fileId: Int64?
    public var jellyfinPath: String
    public var strategy: Int?
    /// JSON array of the paths and queries tried.
    public var tried: String?
    public var importedAt: Date

    public init(jellyfinId: String, fileId: Int64?, jellyfinPath: String, strategy: Int?, tried: String?,
                importedAt: Date = Date()) {
        self.jellyfinId = jellyfinId; self.fileId = fileId; self.jellyfinPath = jellyfinPath
        self.strategy = strategy; self.tried = tried; self.importedAt = importedAt
    }
}
