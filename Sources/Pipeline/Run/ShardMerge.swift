import Foundation
import GRDB
import Library
import Store

/// `spindle merge SHARD.db... [--into MAIN.db]`: folds shard databases (from `analyze --shard K/N` on any
/// number of machines) into one, shard by shard, each in one transaction. Refused before anything is
/// written: a file that is not a Spindle database, one of another schema version, one holding several
/// libraries or a different library than the target, and the target itself.
public enum ShardMerge {
    public struct Report: Sendable {
        public var shards: [(path: String, counts: MergeCounts)] = []
        public var seconds = 0.0

        public func text() -> String {
            shards.map { s in
                "\(s.path): \(s.counts.filesAdded) files added, \(s.counts.filesUpdated) updated, \(s.counts.tracks) tags, "
                    + "\(s.counts.analyses) analyses, \(s.counts.runs) runs"
                    + (s.counts.forgotten > 0 ? ", \(s.counts.forgotten) files missing longer than kept forgotten" : "")
            }.joined(separator: "\n") + String(format: "\nmerged %d shard(s) in %.2f s", shards.count, seconds)
        }

        public func json() -> JSONValue {
            .object([("shards", .array(shards.map { s in
                .object([("path", .string(s.path)), ("files_added", .from(s.counts.filesAdded)),
                         ("files_updated", .from(s.counts.filesUpdated)), ("tracks", .from(s.counts.tracks)),
                         ("analyses", .from(s.counts.analyses)), ("runs", .from(s.counts.runs)),
                         ("forgotten", .from(s.counts.forgotten))])
            })), ("seconds", .from(seconds, digits: 3))])
        }
    }

    /// Shards whose top-level names share less than this with the target's are another library: the share of
    /// the smaller set that the other holds too, so that a library grown since (new artist folders) is the same.
    static let sameLibrary = 0.5

    public static func run(shards: [String], into target: String?, settings: Settings) throws -> Report {
        let started = monotonicSeconds()
        let targetPath = target ?? settings.databasePath
        let folder = (targetPath as NSString).deletingLastPathComponent
        if !folder.isEmpty { try Folders.make(folder) }
        let lock = try RunLock(databasePath: targetPath, command: "merge")
        defer { withExtendedLifetime(lock) {} }
        let database = try SpindleDatabase(path: targetPath)
        let journal = try RunJournal(database: database, kind: "merge", options: shards.joined(separator: " "))
        var report = Report()
        do {
            for shard in shards {
                let counts = try merge(shard, into: database, targetPath: targetPath, settings: settings)
                report.shards.append((shard, counts))
            }
            report.seconds = monotonicSeconds() - started
            try journal.finish(status: .completed, summary: report.text())
        } catch {
            try? journal.finish(status: .failed, summary: "\(error)")
            throw error
        }
        return report
    }

    private static func merge(_ shard: String, into database: SpindleDatabase, targetPath: String,
                              settings: Settings) throws -> MergeCounts {
        var st = stat()
        guard stat(shard, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw ConfigurationError("\(shard): not a database file")
        }
        // The same file by any name: a symlink, a hard link (which read as "disk I/O error… disk may be full").
        var targetStat = stat()
        if stat(targetPath, &targetStat) == 0, targetStat.st_dev == st.st_dev, targetStat.st_ino == st.st_ino {
            throw ConfigurationError("\(shard) is the target database itself")
        }
        do {
            return try merge(shard, size: Int64(st.st_size), into: database, settings: settings)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
            throw ConfigurationError("\(shard) is not a Spindle database, or is damaged (SQLite: \(error.message ?? "\(error.resultCode)")); "
                + "nothing of it merged, and the target is as it was")
        } catch let error as MergeQueries.MergeTimeout {
            throw ConfigurationError("\(shard): \(error)")
        }
    }

    /// A shard's time: ten minutes, and a second more for each MB it holds (copying runs at hundreds of MB a second).
    static func timeLimit(bytes: Int64) -> Double { 600 + Double(bytes) / 1_000_000 }

    private static func merge(_ shard: String, size: Int64, into database: SpindleDatabase, settings: Settings) throws -> MergeCounts {
        try database.writer.writeWithoutTransaction { db in try MergeQueries.withShard(db, path: shard, seconds: timeLimit(bytes: size)) {
            let description = try MergeQueries.describe(db, schema: "shard")
            let ours = SpindleDatabase.migrationNames.sorted()
            guard !description.migrations.isEmpty, description.roots.count <= 1 else {
                throw ConfigurationError(description.migrations.isEmpty
                    ? "\(shard) is not a Spindle database"
                    : "\(shard) holds \(description.roots.count) libraries; a shard holds one")
            }
            guard description.migrations == ours else {
                let newer = Set(description.migrations).subtracting(ours)
                throw ConfigurationError(newer.isEmpty
                    ? "\(shard) was written by an older Spindle (schema up to \(description.migrations.last ?? "?")): open it once with this version (`spindle --db \(shard) status`) to upgrade it, then merge"
                    : "\(shard) was written by a newer Spindle (schema \(newer.sorted().joined(separator: ", "))): merge with that version")
            }
            guard let shardId = description.databaseId else { throw ConfigurationError("\(shard) has no database id") }
            guard shardId != (try MergeQueries.databaseId(db)) else {
                throw ConfigurationError("\(shard) is a copy of the target database")
            }
            if let refusal = try ShardChecks.refusal(db, shard: "shard") {
                throw ConfigurationError("\(shard): \(refusal); refused, nothing of it merged")
            }
            try MergeQueries.trustVerifiedSchema(db)
            guard let shardRoot = description.roots.first else { return MergeCounts() }   // an empty shard
            let targetRoots = try MergeQueries.describe(db, schema: "main").roots
            let rootId: Int64
            if let ours = targetRoots.first {
                // What each side's scan recorded at the top of the library, and the top folders of the files each
                // holds: a shard that records none (top_level '[]') still holds its files' folders.
                let a = Set(ours.topLevel).union(try MergeQueries.topFolders(db, schema: "main"))
                let b = Set(shardRoot.topLevel).union(try MergeQueries.topFolders(db, schema: "shard"))
                if !a.isEmpty, !b.isEmpty {
                    let shared = Double(a.intersection(b).count) / Double(min(a.count, b.count))
                    guard shared >= sameLibrary else {
                        throw ConfigurationError(String(format: "%@ is of a different library: its top-level folders share %.0f%% with the target's",
                                                        shard, 100 * shared))
                    }
                }
                rootId = try FileQueries.ensureRoot(db, path: ours.path)
            } else {
                // A new target: the library is wherever this machine has it, else where the shard saw it.
                let path = settings.libraryPath ?? shardRoot.path
                guard PlainPath.isPlainAbsolute(path) else {
                    throw ConfigurationError("\(shard) names its library \(String(reflecting: path)), not a plain absolute path; "
                        + "give the library with --library")
                }
                rootId = try FileQueries.ensureRoot(db, path: path)
            }
            var counts = MergeCounts()
            try db.inTransaction {
                counts = try MergeQueries.merge(db, shard: "shard", shardId: shardId, into: rootId)
                if let spec = shardRoot.shard {
                    let share = try Shard(parsing: spec)
                    counts.filesUpdated += try MergeQueries.markUnseen(db, shard: "shard", rootId: rootId) { share.contains($0) }
                }
                // The library as the shard's scan saw it: the next merge is compared with today's folders, not
                // with those of the first merge, which a library growing night after night leaves behind.
                try FileQueries.describeRoot(db, rootId: rootId, topLevel: shardRoot.topLevel, shard: nil)
                // A merged database is never scanned: the shards' files that went missing are forgotten here, as
                // each shard's scan forgets its own.
                if let keep = settings.forgetMissingAfter {
                    counts.forgotten = try FileQueries.forgetMissing(db, rootId: rootId, missingBefore: Date().addingTimeInterval(-keep))
                }
                return .commit
            }
            return counts
        } }
    }
}
