import Foundation
import GRDB

public struct LibraryRootRecord: SnakeCaseRecord, Sendable {
    public static let databaseTableName = "library_roots"
    public var id: Int64?
    public var path: String
    public var addedAt: Date
    public var lastScanAt: Date?
    /// JSON array of the names at the root (sorted): how merges recognise one library on several machines.
    public var topLevel: String?
    /// "K/N" when this database holds one shard of the library.
    public var shard: String?

    public init(id: Int64? = nil, path: String, addedAt: Date = Date(), lastScanAt: Date? = nil) {
        self.id = id; self.path = path; self.addedAt = addedAt; self.lastScanAt = lastScanAt
    }
}

extension LibraryRootRecord {
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
