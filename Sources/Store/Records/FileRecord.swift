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
    /// The inode's change time (`st_ctim`): moved by every write, including one that set the modification time
    /// back afterwards, as taggers do when asked to keep timestamps. Nil in rows scanned before it was kept.
    public var ctimeNs: Int64?
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
                missingSince: Date? = nil, audioKey: String? = nil, ctimeNs: Int64? = nil) {
        self.id = id; self.rootId = rootId; self.path = path
        self.name = Self.nameKey(path)
        self.size = size; self.mtimeNs = mtimeNs; self.ctimeNs = ctimeNs; self.inode = inode; self.contentKey = contentKey
        self.audioKey = audioKey
        self.status = status; self.firstSeenAt = firstSeenAt; self.changedAt = changedAt; self.missingSince = missingSince
    }
}

extension FileRecord {
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The `name` column: the file name lower-cased, in Unicode's composed form (NFC). A library copied from a
    /// Mac keeps its names decomposed (NFD: "é" as e + ◌́, Hangul as separate jamo) while players and servers
    /// send composed ones, so the name lookup compares both in one form.
    public static func nameKey(_ path: String) -> String {
        (path as NSString).lastPathComponent.precomposedStringWithCanonicalMapping.lowercased()
    }
}
