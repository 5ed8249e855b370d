import Foundation
import GRDB

public struct RunFileRecord: SnakeCaseRecord, Sendable {
    public static let databaseTableName = "run_files"
    public var runId: Int64
    public var fileId: Int64
    public enum Status: String, Codable, Sendable { case pending, done, failed, skipped }
    public var stage: String
    public var status: Status
    public var error: String?
    public var attempts: Int
    public var updatedAt: Date

    public init(runId: Int64, fileId: Int64, stage: String, status: Status, error: String? = nil, attempts: Int = 0,
                updatedAt: Date = Date()) {
        self.runId = runId; self.fileId = fileId; self.stage = stage; self.status = status; self.error = error
        self.attempts = attempts; self.updatedAt = updatedAt
    }
}
