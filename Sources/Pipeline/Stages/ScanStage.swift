import Foundation
import Library
import Store

extension LibraryJobs {
    /// Stage `scan`'s record of what the walk could not index, shown by `status` as failures at "scan".
    static func recordScanIssues(_ scan: ScanReport, rootId: Int64, database: SpindleDatabase) throws {
        let now = Date()
        // One row per path: the last reason given for it wins.
        var issues: [String: ScanIssueRecord] = [:]
        for issue in scan.skipped {
            issues[issue.relativePath] = ScanIssueRecord(rootId: rootId, path: issue.relativePath, reason: issue.reason, seenAt: now)
        }
        try database.writer.write { db in
            try FileQueries.replaceScanIssues(db, rootId: rootId, issues.keys.sorted().map { issues[$0]! })
        }
    }
}
