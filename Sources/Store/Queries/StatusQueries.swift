import Foundation
import GRDB

/// What the database holds, for `status`.
public struct StatusSnapshot: Sendable {
    public struct Failure: Sendable { public var path, stage, error: String }
    public var roots: [String] = []
    public var filesPresent = 0
    public var filesMissing = 0
    public var tracks = 0
    public var analysed = 0
    public var pending = 0
    /// The analyzer versions stored for present files, each with how many files hold it (which analyzers
    /// changed since they were analysed).
    public var storedVersions: [(versions: [String: Int], files: Int)] = []
    /// Present files with a current feature vector (for similarity and clustering).
    public var featureVectors = 0
    public var embeddings = 0
    /// The latest outcome of each (file, stage) that failed, then the walk's unindexable entries.
    public var failures: [Failure] = []
    /// Files analysed from what could be decoded, with the reason.
    public var partial: [Failure] = []
    public var runs: [RunRecord] = []
}

public enum StatusQueries {
    /// `versions`: every analyzer's current version (what "analysed" means).
    public static func snapshot(_ db: Database, versions: [String: Int], runLimit: Int) throws -> StatusSnapshot {
        var s = StatusSnapshot()
        s.roots = try LibraryRootRecord.order(Column("id")).fetchAll(db).map(\.path)
        s.filesPresent = try FileRecord.filter(Column("status") == FileRecord.Status.present.rawValue).fetchCount(db)
        s.filesMissing = try FileRecord.filter(Column("status") == FileRecord.Status.missing.rawValue).fetchCount(db)
        s.tracks = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM tracks t JOIN files f ON f.id = t.file_id WHERE f.status = 'present' AND t.error IS NULL
            """) ?? 0
        (s.analysed, s.pending) = try AnalysisQueries.counts(db, versions: versions)
        s.storedVersions = try AnalysisQueries.storedVersions(db)
        s.featureVectors = try AnalysisQueries.featureVectorCount(db)
        s.embeddings = try AnalysisQueries.embeddingCount(db)
        s.failures = try Row.fetchAll(db, sql: """
            SELECT f.path, rf.stage, rf.error FROM run_files rf JOIN files f ON f.id = rf.file_id
            WHERE f.status = 'present' AND rf.status = 'failed'
              AND rf.run_id = (SELECT MAX(r2.run_id) FROM run_files r2 WHERE r2.file_id = rf.file_id AND r2.stage = rf.stage)
            ORDER BY f.path, rf.stage
            """).map { try StatusSnapshot.Failure(path: $0.at(0), stage: $0.at(1), error: $0.at(2) ?? "unknown error") }
        s.failures += try ScanIssueRecord.order(Column("path")).fetchAll(db).map {
            StatusSnapshot.Failure(path: $0.path, stage: "scan", error: $0.reason)
        }
        s.partial = try Row.fetchAll(db, sql: """
            SELECT f.path, a.damage FROM analysis a JOIN files f ON f.id = a.file_id
            WHERE f.status = 'present' AND a.status = 'ok' AND a.damage IS NOT NULL ORDER BY f.path
            """).map { try StatusSnapshot.Failure(path: $0.at(0), stage: "analyze", error: $0.at(1)) }
        s.runs = try RunQueries.latest(db, limit: runLimit)
        return s
    }
}
