import Foundation
import GRDB

/// The file index (`library_roots`, `files`, `file_words`, `scan_issues`): lookups by path, name and word,
/// and the writes a scan makes. Every query is scoped to one root.
public enum FileQueries {
    /// Every library root the database has scanned, oldest first.
    public static func roots(_ db: Database) throws -> [String] {
        try rootRows(db).map(\.path)
    }

    /// Every root with its row id, oldest first.
    public static func rootRows(_ db: Database) throws -> [(id: Int64, path: String)] {
        try LibraryRootRecord.order(Column("id")).fetchAll(db).map { ($0.id!, $0.path) }
    }

    /// The present files of a root (path relative to it, size), in the order they were first indexed.
    public static func presentFiles(_ db: Database, rootId: Int64) throws -> [(path: String, size: Int64)] {
        try Row.fetchAll(db, sql: "SELECT path, size FROM files WHERE root_id = ? AND status = 'present' ORDER BY id",
                         arguments: [rootId]).map { try ($0.at(0), $0.at(1)) }
    }

    /// Points the root `id` at the folder it moved to. Its files are relative to it and keep their rows, tags
    /// and analysis; the playlists Spindle wrote under the old folder are remembered under the new one, where
    /// they moved with it.
    public static func relocateRoot(_ db: Database, id: Int64, from old: String, to new: String) throws {
        try db.execute(sql: "UPDATE library_roots SET path = ? WHERE id = ?", arguments: [new, id])
        // SQLite's substr counts characters (code points) in text, not bytes.
        let prefix = old.unicodeScalars.count + 1
        try db.execute(sql: "UPDATE playlists SET file = ? || substr(file, ?) WHERE substr(file, 1, ?) = ?",
                       arguments: [new, prefix, prefix, old + "/"])
    }

    public static func rootId(_ db: Database, path: String) throws -> Int64? {
        try LibraryRootRecord.filter(Column("path") == path).fetchOne(db)?.id
    }

    /// The root's row id, created on first use.
    public static func ensureRoot(_ db: Database, path: String) throws -> Int64 {
        if let id = try rootId(db, path: path) { return id }
        var record = LibraryRootRecord(path: path)
        try record.insert(db)
        return record.id!
    }

    public static func files(_ db: Database, rootId: Int64) throws -> [FileRecord] {
        try FileRecord.filter(Column("root_id") == rootId).fetchAll(db)
    }

    /// The file at `path` (relative to the root at `rootPath`), present or not.
    public static func fileId(_ db: Database, rootPath: String, path: String) throws -> Int64? {
        try Int64.fetchOne(db, sql: """
            SELECT f.id FROM files f JOIN library_roots r ON r.id = f.root_id WHERE r.path = ? AND f.path = ?
            """, arguments: [rootPath, path])
    }

    /// Every present file of the root at `rootPath`, by path.
    public static func presentPaths(_ db: Database, rootPath: String) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT f.path FROM files f JOIN library_roots r ON r.id = f.root_id
            WHERE r.path = ? AND f.status = 'present' ORDER BY f.path
            """, arguments: [rootPath])
    }

    /// The present file at `path`, or every present file under the folder `path`.
    public static func presentPaths(_ db: Database, rootId: Int64, at path: String) throws -> [String] {
        // substr, not LIKE: an exact, case-sensitive prefix whatever characters the folder's name holds.
        try String.fetchAll(db, sql: """
            SELECT path FROM files WHERE root_id = ? AND status = 'present' AND (path = ? OR substr(path, 1, ?) = ?)
            ORDER BY path
            """, arguments: [rootId, path, (path + "/").unicodeScalars.count, path + "/"])  // substr counts code points
    }

    /// Present files whose name key (`FileRecord.nameKey`: lower-cased, composed) is `name` (the resolver's
    /// strategy 3, and strategies 1–2 when the path on disk is in another Unicode form than the one asked).
    public static func presentPaths(_ db: Database, rootId: Int64, named name: String) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT path FROM files WHERE root_id = ? AND status = 'present' AND name = ?",
                            arguments: [rootId, name])
    }

    /// Present files holding at least `needed` of `words` (PathWords' words), most matched words first
    /// (the resolver's strategy 4): ranking in the query keeps the best from being cut off by the limit,
    /// however many files share a common word.
    public static func presentPaths(_ db: Database, rootId: Int64, sharing words: [String], atLeast needed: Int,
                                    limit: Int = 500) throws -> [String] {
        guard !words.isEmpty else { return [] }
        let perWord = words.map { _ in "SELECT rowid FROM file_words WHERE file_words MATCH ?" }.joined(separator: " UNION ALL ")
        let phrases = StatementArguments(words.map { "\"\($0.replacingOccurrences(of: "\"", with: ""))\"" })
        return try String.fetchAll(db, sql: """
            SELECT f.path FROM (SELECT rowid AS id, count(*) AS hits FROM (\(perWord)) GROUP BY rowid HAVING hits >= ?) m
            JOIN files f ON f.id = m.id
            WHERE f.root_id = ? AND f.status = 'present'
            ORDER BY m.hits DESC, f.path LIMIT ?
            """, arguments: phrases + [needed, rootId, limit])
    }

    /// Writes what a scan found in one transaction. Moved files first give up their old paths, so a new path
    /// still held by a row going missing is free.
    public static func applyScan(_ db: Database, rootId: Int64, updates: [FileRecord], moved: Set<Int64>,
                                 inserts: [FileRecord], at now: Date) throws -> [Int64] {
        for record in updates where moved.contains(record.id!) {
            try db.execute(sql: "UPDATE files SET path = '\u{1}moving/' || id WHERE id = ?", arguments: [record.id!])
        }
        for var record in updates { try record.update(db) }
        var inserted: [Int64] = []
        for var record in inserts {
            try record.insert(db)
            inserted.append(record.id!)
        }
        try db.execute(sql: "UPDATE library_roots SET last_scan_at = ? WHERE id = ?", arguments: [now, rootId])
        return inserted
    }

    /// Deletes the root's files missing since before `cutoff`, and with them (by their foreign keys) their
    /// tags, analysis, visualiser frames, per-run journal and genre memberships; a tag edit keeps its path and
    /// values, a Navidrome id its row. A kept row costs what its frames weigh (about 200 KB for four minutes)
    /// for as long as the database lives: a library whose MP3s were replaced by FLACs had carried both.
    /// Returns how many.
    public static func forgetMissing(_ db: Database, rootId: Int64, missingBefore cutoff: Date) throws -> Int {
        try db.execute(sql: "DELETE FROM files WHERE root_id = ? AND status = 'missing' AND missing_since < ?",
                       arguments: [rootId, cutoff])
        return db.changesCount
    }

    /// Records what a scan saw at the top of the root and which shard (if any) this database holds.
    public static func describeRoot(_ db: Database, rootId: Int64, topLevel: [String], shard: String?) throws {
        let json = String(decoding: try JSONEncoder().encode(topLevel), as: UTF8.self)
        try LibraryRootRecord.filter(key: rootId).updateAll(db, Column("top_level").set(to: json), Column("shard").set(to: shard))
    }

    /// The folders inside the root that were mount points (another disk, a share) at the last scan, each with
    /// the device it was.
    public static func mountPoints(_ db: Database, rootId: Int64) throws -> [String: UInt64] {
        let json = try String.fetchOne(db, sql: "SELECT mount_points FROM library_roots WHERE id = ?", arguments: [rootId])
        return json.flatMap { try? JSONDecoder().decode([String: UInt64].self, from: Data($0.utf8)) } ?? [:]
    }

    public static func recordMountPoints(_ db: Database, rootId: Int64, _ devices: [String: UInt64]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(devices), as: UTF8.self)
        try db.execute(sql: "UPDATE library_roots SET mount_points = ? WHERE id = ?", arguments: [json, rootId])
    }

    /// Replaces the root's scan issues with this scan's.
    public static func replaceScanIssues(_ db: Database, rootId: Int64, _ issues: [ScanIssueRecord]) throws {
        try ScanIssueRecord.filter(Column("root_id") == rootId).deleteAll(db)
        for var issue in issues { try issue.save(db) }
    }
}
