import Foundation
import GRDB
import GRDBSQLite

/// What a shard database holds about itself, read before merging it.
public struct ShardDescription: Sendable {
    public var databaseId: String?
    public var migrations: [String]
    public var roots: [(path: String, topLevel: [String], shard: String?)]
    public var files: Int
}

/// What one merge changed in the target.
public struct MergeCounts: Sendable, Equatable {
    public var filesAdded = 0
    public var filesUpdated = 0
    public var tracks = 0
    public var analyses = 0
    public var runs = 0
    /// Target files missing longer than kept, forgotten after the merge (`FileQueries.forgetMissing`).
    public var forgotten = 0

    public init() {}
}

/// Folding shard databases into one. The shard is attached to the target's connection and copied with
/// INSERT … SELECT inside one transaction, so memory stays flat whatever its size and a killed merge leaves
/// the target as it was before that shard. Newer wins: a file row whose observation is newer, a tags or
/// analysis row that describes the file's present content (or is newer for the same content). Runs carry
/// their origin (`<database id>#<run id>`), so merging a shard twice copies nothing twice.
public enum MergeQueries {
    /// Runs `body` with the database file at `path` attached as schema `shard`, detached afterwards. The shard
    /// is another machine's file: it is attached with `trusted_schema` off (a view or trigger in it may use no
    /// function or virtual table that is not innocuous) until `trustVerifiedSchema` says its schema is Spindle's,
    /// and every statement stops once `seconds` have passed since the attach (`MergeTimeout`), so that nothing
    /// in it holds the merge, and the run lock with it, for good.
    public static func withShard<T>(_ db: Database, path: String, seconds: Double, _ body: () throws -> T) throws -> T {
        try db.execute(sql: "PRAGMA trusted_schema = OFF")
        defer { try? db.execute(sql: "PRAGMA trusted_schema = ON") }
        let deadline = UnsafeMutablePointer<timespec>.allocate(capacity: 1)
        defer { deadline.deallocate() }
        clock_gettime(CLOCK_MONOTONIC, deadline)
        deadline.pointee.tv_sec += Int(seconds.rounded(.up))
        sqlite3_progress_handler(db.sqliteConnection, 100_000, { context in
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let limit = context!.assumingMemoryBound(to: timespec.self).pointee
            return now.tv_sec > limit.tv_sec || (now.tv_sec == limit.tv_sec && now.tv_nsec >= limit.tv_nsec) ? 1 : 0
        }, deadline)
        defer { sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil) }
        do {
            try db.execute(sql: "ATTACH DATABASE ? AS shard", arguments: [path])
            defer { try? db.execute(sql: "DETACH DATABASE shard") }
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            throw MergeTimeout(seconds: seconds)
        }
    }

    /// Turns `trusted_schema` back on once `ShardChecks` found the shard's schema to be Spindle's own: the
    /// target's fuzzy-index triggers, which the copy fires, use a virtual table and a function that SQLite
    /// allows in a trigger only in a trusted schema.
    public static func trustVerifiedSchema(_ db: Database) throws {
        try db.execute(sql: "PRAGMA trusted_schema = ON")
    }

    /// A shard whose merge ran past its time (`withShard`).
    public struct MergeTimeout: Error, CustomStringConvertible {
        public var seconds: Double
        public var description: String {
            String(format: "its merge was still running after %.0f s, more than a shard of its size takes; stopped, nothing of it merged",
                   seconds)
        }
    }

    public static func databaseId(_ db: Database, schema: String = "main") throws -> String? {
        guard try db.tableExists("database_info", in: schema) else { return nil }
        return try String.fetchOne(db, sql: "SELECT value FROM \(schema).database_info WHERE key = 'id'")
    }

    public static func describe(_ db: Database, schema: String) throws -> ShardDescription {
        let migrations = try db.tableExists("grdb_migrations", in: schema)
            ? try String.fetchAll(db, sql: "SELECT identifier FROM \(schema).grdb_migrations ORDER BY identifier") : []
        guard try db.tableExists("files", in: schema), try db.tableExists("library_roots", in: schema) else {
            return ShardDescription(databaseId: nil, migrations: migrations, roots: [], files: 0)
        }
        let hasTop = try db.columns(in: "library_roots", in: schema).contains { $0.name == "top_level" }
        let roots = try Row.fetchAll(db, sql: """
            SELECT path, \(hasTop ? "top_level, shard" : "NULL, NULL") FROM \(schema).library_roots ORDER BY id
            """).map { row -> (String, [String], String?) in
            let top = (try row.at(1) as String?).flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
            return try (row.at(0), top, row.at(2))
        }
        let files = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(schema).files") ?? 0
        return ShardDescription(databaseId: try databaseId(db, schema: schema), migrations: migrations, roots: roots, files: files)
    }

    /// The first components of the paths of the files `schema` holds.
    public static func topFolders(_ db: Database, schema: String) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: """
            SELECT DISTINCT CASE WHEN instr(path, '/') > 0 THEN substr(path, 1, instr(path, '/') - 1) ELSE path END
            FROM \(schema).files WHERE typeof(path) = 'text'
            """))
    }

    /// Copies the attached schema `shard` (one library root) into the target's root `rootId`.
    public static func merge(_ db: Database, shard: String, shardId: String, into rootId: Int64) throws -> MergeCounts {
        var counts = MergeCounts()
        let s = shard
        try db.execute(sql: """
            INSERT INTO main.files (root_id, path, name, size, mtime_ns, ctime_ns, inode, content_key, audio_key, status, first_seen_at,
                                    changed_at, missing_since)
            SELECT ?, s.path, s.name, s.size, s.mtime_ns, s.ctime_ns, s.inode, s.content_key, s.audio_key, s.status, s.first_seen_at,
                   s.changed_at, s.missing_since
            FROM \(s).files s
            WHERE NOT EXISTS (SELECT 1 FROM main.files t WHERE t.root_id = ? AND t.path = s.path)
            """, arguments: [rootId, rootId])
        counts.filesAdded = db.changesCount
        // Every shard file now has a target row: map them once, the shard as the outer loop (CROSS JOIN fixes
        // the order) and the target looked up through its (root_id, path) index, linear in the shard. Everything
        // after goes through this map by primary key.
        try db.execute(sql: """
            DROP TABLE IF EXISTS temp.merge_map;
            CREATE TEMP TABLE merge_map (shard_id INTEGER PRIMARY KEY, target_id INTEGER NOT NULL);
            DROP TABLE IF EXISTS temp.merge_newer;
            CREATE TEMP TABLE merge_newer (target_id INTEGER PRIMARY KEY, shard_id INTEGER NOT NULL);
            """)
        try db.execute(sql: """
            INSERT INTO temp.merge_map SELECT s.id, t.id FROM \(s).files s CROSS JOIN main.files t ON t.root_id = ? AND t.path = s.path
            """, arguments: [rootId])
        try db.execute(sql: """
            INSERT INTO temp.merge_newer SELECT m.target_id, m.shard_id FROM temp.merge_map m
            JOIN \(s).files s ON s.id = m.shard_id JOIN main.files t ON t.id = m.target_id
            WHERE s.changed_at > t.changed_at
            """)
        try db.execute(sql: """
            UPDATE main.files SET (name, size, mtime_ns, ctime_ns, inode, content_key, audio_key, status, changed_at, missing_since) =
                (SELECT s.name, s.size, s.mtime_ns, s.ctime_ns, s.inode, s.content_key, s.audio_key, s.status, s.changed_at,
                        CASE WHEN s.missing_since IS NULL THEN NULL
                             WHEN main.files.status = 'present' THEN max(s.missing_since, main.files.changed_at)
                             ELSE max(s.missing_since, coalesce(main.files.missing_since, s.missing_since)) END
                 FROM temp.merge_newer n JOIN \(s).files s ON s.id = n.shard_id WHERE n.target_id = main.files.id)
            WHERE id IN (SELECT target_id FROM temp.merge_newer)
            """)
        counts.filesUpdated = db.changesCount
        counts.tracks = try copyNewer(db, table: "tracks", time: "read_at", shard: s)
        counts.analyses = try copyNewer(db, table: "analysis", time: "analyzed_at", shard: s)
        // Frames go with the analysis they were computed with.
        try db.execute(sql: """
            DELETE FROM main.vis_frames WHERE file_id IN (SELECT target_id FROM temp.merge_won);
            INSERT INTO main.vis_frames (file_id, fps, bands, count, data)
            SELECT w.target_id, v.fps, v.bands, v.count, v.data FROM temp.merge_won w JOIN \(s).vis_frames v ON v.file_id = w.shard_id;
            """)
        try db.execute(sql: "INSERT OR IGNORE INTO main.feature_dimensions SELECT version, position, name FROM \(s).feature_dimensions")
        let origin = "COALESCE(r.origin, ? || '#' || r.id)"
        try db.execute(sql: """
            INSERT INTO main.runs (kind, status, pid, started_at, finished_at, files_total, files_done, files_failed,
                                   files_skipped, options, summary, origin)
            SELECT r.kind, r.status, r.pid, r.started_at, r.finished_at, r.files_total, r.files_done, r.files_failed,
                   r.files_skipped, r.options, r.summary, \(origin)
            FROM \(s).runs r WHERE NOT EXISTS (SELECT 1 FROM main.runs t WHERE t.origin = \(origin))
            """, arguments: [shardId, shardId])
        counts.runs = db.changesCount
        try db.execute(sql: """
            INSERT OR IGNORE INTO main.run_files (run_id, file_id, stage, status, error, attempts, updated_at)
            SELECT t.id, m.target_id, rf.stage, rf.status, rf.error, rf.attempts, rf.updated_at
            FROM \(s).run_files rf JOIN \(s).runs r ON r.id = rf.run_id
            JOIN main.runs t ON t.origin = \(origin) JOIN temp.merge_map m ON m.shard_id = rf.file_id
            """, arguments: [shardId])
        try db.execute(sql: """
            INSERT OR REPLACE INTO main.scan_issues (root_id, path, reason, seen_at) SELECT ?, path, reason, seen_at FROM \(s).scan_issues
            """, arguments: [rootId])
        try db.execute(sql: "DROP TABLE temp.merge_map; DROP TABLE temp.merge_newer; DROP TABLE IF EXISTS temp.merge_won")
        return counts
    }

    /// The target's present files of root `rootId` that the attached shard's scan covered (`covers`: whether a
    /// path is of its share) and that it holds no row for become missing. A file renamed within one shard took
    /// its row to the new path, so its old path has no row there to merge: without this, the merged library
    /// kept it as present beside the new one. Only rows older than the shard's last run are judged, so an older
    /// shard merged after a newer observation changes nothing. Returns how many.
    public static func markUnseen(_ db: Database, shard s: String, rootId: Int64, covers: (String) -> Bool) throws -> Int {
        guard let scanned = try Date.fetchOne(db, sql: "SELECT MAX(started_at) FROM \(s).runs") else { return 0 }
        let seen = Set(try String.fetchAll(db, sql: "SELECT path FROM \(s).files"))
        let unseen = try Row.fetchAll(db, sql: """
            SELECT id, path FROM main.files WHERE root_id = ? AND status = 'present' AND changed_at < ?
            """, arguments: [rootId, scanned]).filter { row in
            let path: String = try row.at("path")
            return !seen.contains(path) && covers(path)
        }.map { try $0.at("id") as Int64 }
        for start in stride(from: 0, to: unseen.count, by: 500) {
            let ids = unseen[start..<min(unseen.count, start + 500)]
            try db.execute(sql: """
                UPDATE main.files SET status = 'missing', missing_since = ?, changed_at = ?
                WHERE id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))
                """, arguments: StatementArguments([scanned, scanned]) + StatementArguments(Array(ids)))
        }
        return unseen.count
    }

    /// Replaces the target's row of `table` (keyed by file) with the shard's where the shard's describes the
    /// file's present content and the target's does not, or both do and the shard's is newer. The winners are
    /// left in `temp.merge_won`.
    private static func copyNewer(_ db: Database, table: String, time: String, shard s: String) throws -> Int {
        let columns = try db.columns(in: table).map(\.name).filter { $0 != "file_id" }
        let list = columns.joined(separator: ", ")
        try db.execute(sql: """
            DROP TABLE IF EXISTS temp.merge_won;
            CREATE TEMP TABLE merge_won AS
            SELECT m.shard_id, m.target_id FROM \(s).\(table) x JOIN temp.merge_map m ON m.shard_id = x.file_id
            JOIN main.files f ON f.id = m.target_id LEFT JOIN main.\(table) t ON t.file_id = m.target_id
            WHERE t.file_id IS NULL
               OR (x.content_key IS f.content_key AND t.content_key IS NOT f.content_key)
               OR (x.content_key IS f.content_key AND t.content_key IS f.content_key AND x.\(time) > t.\(time))
               OR (t.content_key IS NOT f.content_key AND x.content_key IS NOT f.content_key AND x.\(time) > t.\(time));
            """)
        try db.execute(sql: """
            INSERT OR REPLACE INTO main.\(table) (file_id, \(list))
            SELECT w.target_id, \(columns.map { "x." + $0 }.joined(separator: ", "))
            FROM temp.merge_won w JOIN \(s).\(table) x ON x.file_id = w.shard_id
            """)
        return db.changesCount
    }
}
