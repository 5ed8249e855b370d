import Foundation
import GRDB

/// An entry the walk could not index (bad name, too long a path, an escaping symlink), with why.
public struct ScanIssueRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "scan_issues"
    public var rootId: Int64
    public var path: String
    public var reason: String
    public var seenAt: Date

    public init(rootId: Int64, path: String, reason: String, seenAt: Date = Date()) {
        self.rootId = rootId; self.path = path; self.reason = reason; self.seenAt = seenAt
    }
}
