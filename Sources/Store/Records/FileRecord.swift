import Foundation
import GRDB

public struct FileRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "files"
    public enum Status: String, Codable, Sendable { case present, missing }
    public var id: Int64?
    public var rootId: Int64
    public var path: String
    public var name: String
    public var size: Int64
    public var mtimeNs: Int64
    public var inode: Int64?
    public var contentKey: String?
    /// The audio's own identity, unchanged by tag edits (`AudioKey`); nil where the container has none.
    public var audioKey: String?
    public var status: Status
    public var firstSeenAt: Date
    public var changedAt: Date
    public var missingSince: Date?

    public init(id: Int64? = nil, rootId: Int64, path: String, size: Int64, mtimeNs: Int64, inode: Int64?,
                contentKey: String?, status: Status = .present, firstSeenAt: Date = Date(), changedAt: Date = Date(),
                missingSince: Date? = nil, audioKey: String? = nil) {
        self.id = id; self.rootId = rootId; self.path = path
        self.name = (path as NSString).lastPathComponent.lowercased()
        self.size = size; self.mtimeNs = mtimeNs; self.inode = inode; self.contentKey = contentKey
        self.audioKey = audioKey
        self.status = status; self.firstSeenAt = firstSeenAt; self.changedAt = changedAt; self.missingSince = missingSince
    }
}

extension FileRecord {
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
