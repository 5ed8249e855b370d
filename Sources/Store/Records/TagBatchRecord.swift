import Foundation
import GRDB

/// One tag batch: journaled before any file is written, undoable once.
public struct TagBatchRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "tag_batches"
    public enum Status: String, Codable, Sendable {
        /// Journaled, files being written.
        case applying
        case applied
        /// Some files failed or conflicted.
        case partial
        case undone
    }
    public var id: Int64?
    public var createdAt: Date
    public var command: String
    public var status: Status
    public var undoneAt: Date?

    public init(command: String, status: Status = .applying, createdAt: Date = Date()) {
        self.command = command; self.status = status; self.createdAt = createdAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// One key's change in one file of a batch: old values first (for undo), then the outcome.
public struct TagEditRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "tag_edits"
    public enum Status: String, Codable, Sendable { case pending, applied, failed, undone, conflict }
    public var id: Int64?
    public var batchId: Int64
    public var fileId: Int64?
    public var path: String
    public var key: String
    /// JSON array; nil: the key was absent.
    public var oldValues: String?
    /// JSON array; nil: the key is removed.
    public var newValues: String?
    public var status: Status
    public var error: String?
    /// The file as the write left it: undo leaves a file that differs alone.
    public var sizeAfter: Int64?
    public var mtimeAfterNs: Int64?
    public var contentKeyAfter: String?

    public init(batchId: Int64, fileId: Int64?, path: String, key: String, oldValues: String?, newValues: String?,
                status: Status = .pending) {
        self.batchId = batchId; self.fileId = fileId; self.path = path; self.key = key
        self.oldValues = oldValues; self.newValues = newValues; self.status = status
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
