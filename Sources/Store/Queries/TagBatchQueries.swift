import Foundation
import GRDB

/// Tag batches and their journal (`tag_batches`, `tag_edits`).
public enum TagBatchQueries {
    /// Journals a batch (every old value, before any file is written) and returns its id.
    public static func create(_ db: Database, command: String, edits: [TagEditRecord]) throws -> Int64 {
        var batch = TagBatchRecord(command: command)
        try batch.insert(db)
        for var edit in edits {
            edit.batchId = batch.id!
            try edit.insert(db)
        }
        return batch.id!
    }

    /// Records one file's outcome: every edit of that file in the batch takes `status`.
    public static func mark(_ db: Database, batch: Int64, path: String, status: TagEditRecord.Status, error: String? = nil,
                            after: (size: Int64, mtimeNs: Int64, contentKey: String?)? = nil) throws {
        var assignments = [Column("status").set(to: status.rawValue)]
        if let error { assignments.append(Column("error").set(to: error)) }
        if let after {
            assignments += [Column("size_after").set(to: after.size), Column("mtime_after_ns").set(to: after.mtimeNs),
                            Column("content_key_after").set(to: after.contentKey)]
        }
        try TagEditRecord.filter(Column("batch_id") == batch && Column("path") == path).updateAll(db, assignments)
    }

    public static func setStatus(_ db: Database, batch: Int64, _ status: TagBatchRecord.Status) throws {
        var assignments = [Column("status").set(to: status.rawValue)]
        if status == .undone { assignments.append(Column("undone_at").set(to: Date())) }
        try TagBatchRecord.filter(key: batch).updateAll(db, assignments)
    }

    /// The batch `id`, or the latest batch not yet undone among those of the library at `rootPath` (a batch
    /// that changed files of another library in the database is that library's to undo).
    public static func batch(_ db: Database, id: Int64?, rootPath: String) throws -> TagBatchRecord? {
        if let id { return try TagBatchRecord.fetchOne(db, key: id) }
        return try TagBatchRecord.fetchOne(db, sql: """
            SELECT * FROM tag_batches b WHERE b.status != ? AND NOT EXISTS (\(otherLibraries) AND e.batch_id = b.id)
            ORDER BY b.id DESC LIMIT 1
            """, arguments: [TagBatchRecord.Status.undone.rawValue, rootPath])
    }

    /// The library, other than the one at `rootPath`, whose files the batch changed; nil when it is this one's.
    public static func otherLibrary(_ db: Database, batch: Int64, rootPath: String) throws -> String? {
        try String.fetchOne(db, sql: "\(otherLibraries) AND e.batch_id = ? LIMIT 1", arguments: [rootPath, batch])
    }

    /// The roots, other than the one at the argument's path, of the files journaled edits changed.
    private static let otherLibraries = """
        SELECT r.path FROM tag_edits e JOIN files f ON f.id = e.file_id JOIN library_roots r ON r.id = f.root_id
        WHERE r.path != ?
        """

    /// Each file's latest written value of `key`, as journaled (`new_values`; nil: the key was removed), and the
    /// command that wrote it.
    public static func lastWritten(_ db: Database, key: String) throws -> [Int64: (newValues: String?, command: String)] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT e.file_id, e.new_values, b.command FROM tag_edits e JOIN tag_batches b ON b.id = e.batch_id
            WHERE e.id IN (SELECT max(id) FROM tag_edits WHERE key = ? AND status = 'applied' AND file_id IS NOT NULL
                           GROUP BY file_id)
            """, arguments: [key])
        return try rows.reduce(into: [:]) { out, row in try out[row.at(0)] = (row.at(1), row.at(2)) }
    }

    /// The later batches whose edits still written touch files that batch `id` wrote and that are not undone
    /// yet, each with one such path (by the newest batch's id, then path): undoing `id` first would find
    /// their writing in place of its own.
    public static func laterOverwrites(_ db: Database, batch id: Int64) throws -> [(batch: Int64, path: String)] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT later.batch_id, min(later.path) FROM tag_edits later JOIN tag_edits e
              ON later.file_id = e.file_id OR later.path = e.path
            WHERE e.batch_id = ? AND e.status = ? AND later.batch_id > ? AND later.status = ?
            GROUP BY later.batch_id ORDER BY later.batch_id DESC
            """, arguments: [id, TagEditRecord.Status.applied.rawValue, id, TagEditRecord.Status.applied.rawValue])
        return try rows.map { try ($0.at(0), $0.at(1)) }
    }

    /// After batch `id` was undone on a file, the file is as the batches before it left it: their journaled
    /// state after writing becomes the file's state now, so that they can be undone in turn.
    public static func restored(_ db: Database, before id: Int64, fileId: Int64?, path: String,
                                to after: (size: Int64, mtimeNs: Int64, contentKey: String?)) throws {
        try db.execute(sql: """
            UPDATE tag_edits SET size_after = ?, mtime_after_ns = ?, content_key_after = ?
            WHERE batch_id < ? AND status = ? AND (file_id = ? OR path = ?)
            """, arguments: [after.size, after.mtimeNs, after.contentKey, id, TagEditRecord.Status.applied.rawValue,
                             fileId, path])
    }

    /// The edits of a batch that were written and not yet undone, by path then key.
    public static func applied(_ db: Database, batch: Int64) throws -> [TagEditRecord] {
        try TagEditRecord.filter(Column("batch_id") == batch && Column("status") == TagEditRecord.Status.applied.rawValue)
            .order(Column("path"), Column("key")).fetchAll(db)
    }
}
