import Foundation
import GRDB

/// What a shard must be before anything of it is merged: a merge copies its rows as they are, and every reader
/// of the target (the server, `similar`, playlists) then trusts them. Each check names the first row that
/// fails it; the merge refuses the whole shard, so a target never holds half of a bad one.
public enum ShardChecks {
    /// Why the attached shard `s` cannot be merged, or nil when it passes every check.
    public static func refusal(_ db: Database, shard s: String, now: Date = Date()) throws -> String? {
        if let difference = try schemaDifference(db, shard: s) { return difference }
        for table in mergedTables {
            if let bad = try mistyped(db, shard: s, table: table) { return bad }
        }
        if let bad = try futureTime(db, shard: s, now: now) { return bad }
        if let bad = try badPath(db, shard: s) { return bad }
        return try oversizedFrames(db, shard: s)
    }

    /// The tables a merge reads.
    static let mergedTables = ["library_roots", "files", "tracks", "analysis", "vis_frames", "feature_dimensions", "runs",
                               "run_files", "scan_issues"]

    /// Tables, indexes, views and triggers must be this Spindle's, statement for statement: the shard was made by
    /// the same schema version (checked before), so any other is planted. A planted view runs when the merge
    /// reads the name it stands in for (an endless recursive one held the merge and its lock for good), and a
    /// trigger or view of the shard could call Spindle's own SQL functions. Read from `sqlite_schema`, which runs
    /// nothing.
    static func schemaDifference(_ db: Database, shard s: String) throws -> String? {
        func objects(_ schema: String) throws -> [String: String] {
            let rows = try Row.fetchAll(db, sql: """
                SELECT type || ' ' || name, coalesce(sql, '') FROM \(schema).sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                """)
            return try Dictionary(rows.map { try ($0.at(0) as String, $0.at(1) as String) }, uniquingKeysWith: { a, _ in a })
        }
        let ours = try objects("main"), theirs = try objects(s)
        if let planted = theirs.keys.sorted().first(where: { ours[$0] == nil }) {
            return "it holds \(planted), which is not Spindle's"
        }
        if let changed = theirs.keys.sorted().first(where: { ours[$0] != theirs[$0] }) {
            return "its \(changed) is not as Spindle makes it"
        }
        if let missing = ours.keys.sorted().first(where: { theirs[$0] == nil }) {
            return "it lacks \(missing)"
        }
        return nil
    }

    /// The SQLite storage classes a column of declared type `declared` may hold, as Spindle writes it: SQLite
    /// stores any value in any column, and a reader asking for a number where a shard put text failed.
    static func storageClasses(_ declared: String) -> [String] {
        switch declared.uppercased() {
        case "INTEGER", "BOOLEAN": return ["integer", "null"]
        case "DOUBLE", "REAL": return ["real", "integer", "null"]
        case "BLOB": return ["blob", "null"]
        default: return ["text", "null"]   // TEXT, DATETIME, and columns added without a type
        }
    }

    /// The first value of `table` of another storage class than its column's type allows, or a number no
    /// measurement reaches (an infinity, 1e300), named with its row.
    static func mistyped(_ db: Database, shard s: String, table: String) throws -> String? {
        let columns = try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?, ?)", arguments: [table, s])
        var cases: [String] = []
        for column in columns {
            let name: String = try column.at(0), declared: String = try column.at(1)
            let allowed = storageClasses(declared).map { "'\($0)'" }.joined(separator: ", ")
            let quoted = "\"\(name)\""
            cases.append("WHEN typeof(\(quoted)) NOT IN (\(allowed)) THEN '\(name) holds ' || typeof(\(quoted))")
            if storageClasses(declared).contains("real") {
                cases.append("WHEN abs(\(quoted)) > 1e15 THEN '\(name) holds ' || \(quoted)")
            }
        }
        guard !cases.isEmpty else { return nil }
        let row = try Row.fetchOne(db, sql: """
            SELECT * FROM (SELECT rowid, CASE \(cases.joined(separator: " ")) END AS bad FROM \(s).\(table)) WHERE bad IS NOT NULL LIMIT 1
            """)
        guard let row else { return nil }
        let rowid: Int64 = try row.at(0), bad: String = try row.at(1)
        return "\(table).\(bad) (\(try rowName(db, shard: s, table: table, rowid: rowid))), where Spindle stores no such value"
    }

    /// How a message names a row: the file's path where the row is a file's.
    static func rowName(_ db: Database, shard s: String, table: String, rowid: Int64) throws -> String {
        let fileColumn = table == "files" ? "id" : "file_id"
        let hasFile = try db.columns(in: table, in: s).contains { $0.name == fileColumn }
        guard hasFile, let path = try String.fetchOne(db, sql: """
            SELECT f.path FROM \(s).\(table) x JOIN \(s).files f ON f.id = x.\(fileColumn) WHERE x.rowid = ? AND typeof(f.path) = 'text'
            """, arguments: [rowid]) else { return "row \(rowid)" }
        return "file \(String(reflecting: path))"
    }

    /// Times a day or more ahead of now: a shard from a clock set in the future (or written so) would win every
    /// "newer" comparison for good, and a file's `missing_since` set in the past would have the target forget it.
    static let timeColumns = [("files", "changed_at"), ("files", "first_seen_at"), ("files", "missing_since"),
                              ("tracks", "read_at"), ("analysis", "analyzed_at"), ("runs", "started_at"),
                              ("runs", "finished_at"), ("run_files", "updated_at"), ("scan_issues", "seen_at")]

    static func futureTime(_ db: Database, shard s: String, now: Date) throws -> String? {
        let limit = now.addingTimeInterval(86_400)
        for (table, column) in timeColumns {
            // Spindle writes times as 'YYYY-MM-DD HH:MM:SS.SSS', which sort as text.
            if let row = try Row.fetchOne(db, sql: """
                SELECT rowid, \(column) FROM \(s).\(table)
                WHERE \(column) IS NOT NULL AND (\(column) > ? OR \(column) NOT GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]*')
                LIMIT 1
                """, arguments: [limit]) {
                let value: String = try row.at(1)
                return "\(table).\(column) is \(String(reflecting: value)) (\(try rowName(db, shard: s, table: table, rowid: row.at(0)))), "
                    + "not a time before tomorrow"
            }
        }
        return nil
    }

    /// A path that is not a plain relative path inside the library: absolute, with an empty, `.` or `..`
    /// component, a NUL, or a name that is not its last component. Merged as a present file, `playlists write`
    /// wrote `../../outside/victim.flac` into a playlist, and `mix` and `similar` offered it.
    static func badPath(_ db: Database, shard s: String) throws -> String? {
        // SQLite hands text over up to a NUL: one inside is found on its bytes.
        let files = try Row.fetchAll(db, sql: "SELECT path, name, instr(CAST(path AS BLOB), x'00') > 0 FROM \(s).files")
        for row in files {
            let path: String = try row.at(0), name: String = try row.at(1)
            if try row.at(2) as Bool { return "files.path \(String(reflecting: path + "\u{0}…")) holds a NUL" }
            if let why = PlainPath.problem(path) { return "files.path \(String(reflecting: path)) \(why)" }
            if path.split(separator: "/").last.map(String.init) != name {
                return "files.name \(String(reflecting: name)) is not the last part of its path \(String(reflecting: path))"
            }
        }
        for row in try Row.fetchAll(db, sql: "SELECT path, instr(CAST(path AS BLOB), x'00') > 0 FROM \(s).scan_issues") {
            let path: String = try row.at(0)
            if let why = try row.at(1) ? "holds a NUL" : PlainPath.problem(path) {
                return "scan_issues.path \(String(reflecting: path)) \(why)"
            }
        }
        return nil
    }

    /// Frames that are not `count` frames of `bands` bytes, or more frames than the analysed length holds at
    /// their rate, or a length the file's size cannot hold (no codec Spindle decodes spends under 100 bytes on a
    /// second): a 400 MB blob given to a 90-second track was merged, at 886 MB of memory. `length()` of a blob
    /// reads its size, not its bytes.
    static func oversizedFrames(_ db: Database, shard s: String) throws -> String? {
        let row = try Row.fetchOne(db, sql: """
            SELECT f.path, CASE
                WHEN v.fps <= 0 OR v.fps > 1000 OR v.bands <= 0 OR v.bands > 4096 OR v.count < 0 THEN 'a rate or band count no analysis makes'
                WHEN length(v.data) != v.count * v.bands THEN 'a length that is not its count of frames'
                WHEN a.duration_s IS NULL THEN 'no analysed length'
                WHEN v.count > a.duration_s * v.fps * 1.01 + 2 THEN 'more frames than its length holds'
                WHEN a.duration_s > f.size / 100.0 + 1 THEN 'a length its file''s size cannot hold'
            END AS bad
            FROM \(s).vis_frames v JOIN \(s).files f ON f.id = v.file_id LEFT JOIN \(s).analysis a ON a.file_id = v.file_id
            WHERE bad IS NOT NULL LIMIT 1
            """)
        guard let row else { return nil }
        let path: String = try row.at(0), bad: String = try row.at(1)
        return "the visualiser frames of \(String(reflecting: path)) have \(bad)"
    }
}

/// A path as the library holds them: relative to the root, '/'-separated, every component a real name.
public enum PlainPath {
    /// Why `path` is not one, or nil when it is.
    public static func problem(_ path: String) -> String? {
        if path.isEmpty { return "is empty" }
        if path.utf8.contains(0) { return "holds a NUL" }
        if path.hasPrefix("/") { return "is absolute" }
        if path.utf8.count > 4096 { return "is longer than a path can be" }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty { return "has an empty component" }
            if component == "." || component == ".." { return "has a '\(component)' component" }
            if component.utf8.count > 255 { return "has a component longer than a name can be" }
        }
        return nil
    }

    /// Whether `path` is a plain absolute folder: `/`, then components as `problem` takes them (a trailing `/`
    /// allowed), as a library root is.
    public static func isPlainAbsolute(_ path: String) -> Bool {
        var inner = path.dropFirst()
        while inner.hasSuffix("/") { inner.removeLast() }
        return path.hasPrefix("/") && (inner.isEmpty || problem(String(inner)) == nil)
    }
}
