import Foundation
import GRDB

public struct RunRecord: SnakeCaseRecord, Sendable {
    public static let databaseTableName = "runs"
    public enum Status: String, Codable, Sendable { case running, completed, failed, interrupted }
    public var id: Int64?
    public var kind: String
    public var status: Status
    public var pid: Int?
    public var startedAt: Date
    public var finishedAt: Date?
    public var filesTotal: Int
    public var filesDone: Int
    public var filesFailed: Int
    public var filesSkipped: Int
    public var options: String?
    public var summary: String?
    /// "<database id>#<run id>" for a run merged from a shard database.
    public var origin: String?

    public init(kind: String, pid: Int? = Int(getpid()), startedAt: Date = Date(), options: String? = nil) {
        self.kind = kind; self.status = .running; self.pid = pid; self.startedAt = startedAt
        self.filesTotal = 0; self.filesDone = 0; self.filesFailed = 0; self.filesSkipped = 0; self.options = options
    }
}

extension RunRecord {
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
