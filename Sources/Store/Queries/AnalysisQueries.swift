import Foundation
import GRDB

/// Each analyzer's name → the version whose results a row holds (`analysis.analyzer_versions`, JSON).
public enum AnalysisVersions {
    public static func encode(_ versions: [String: Int]) -> String {
        let pairs = versions.keys.sorted().map { "\"\($0)\":\(versions[$0]!)" }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    public static func decode(_ text: String?) -> [String: Int] {
        guard let text, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Int] else { return [:] }
        return object
    }
}

/// One file whose analysis is due.
public struct FileToAnalyse: Sendable {
    public var fileId: Int64
    public var path: String
    public var contentKey: String?
    public var size: Int64
    /// From its tags, when read.
    public var durationS: Double?
    /// The analyzers whose stored results are current for this content (empty when none are).
    public var currentVersions: [String: Int]
}

/// One analysis result to store. `values` are `analysis` columns (named as in `inspect --json`), a null for
/// each result an analyzer that ran could not give; `versions` are the analyzers that ran.
public struct AnalysisWrite: Sendable {
    public var fileId: Int64
    public var contentKey: String?
    public var status: AnalysisRecord.Status
    public var error: String?
    public var damage: String?
    public var codec: String?
    public var durationS: Double?
    public var sampleRate: Int?
    public var channels: Int?
    public var seconds: Double
    public var values: [String: DatabaseValue]
    public var frames: VisFramesWrite?
    /// The dimension names of the `features` column, for the features analyzer's version that wrote it.
    public var featureDimensions: (version: Int, names: [String])?
    public var versions: [String: Int]

    public init(fileId: Int64, contentKey: String?, status: AnalysisRecord.Status, seconds: Double, versions: [String: Int]) {
        self.fileId = fileId
        self.contentKey = contentKey
        self.status = status
        self.seconds = seconds
        self.values = [:]
        self.versions = versions
    }
}

/// The `analysis` and `vis_frames` tables: what is current, storing results, reading them back.
public enum AnalysisQueries {
    /// What rows written with per-analyzer versions put in the legacy single-version column (older readers
    /// see any value other than their own as stale).
    static let legacyAnalyzerVersion = 3

    /// SQL: the analysis row `a` is of the content file `f` holds now. A row of other content (the file replaced
    /// since, a copy laid over it, samples rewritten in place) is no result of this file's until it is analysed
    /// again: no query hands it out as one (write-analysis, the read API, genres, similarity, status).
    static let ofCurrentContent = "a.content_key IS f.content_key"

    /// The one definition of a current analysis: a row for the file's present content holding, for every
    /// wanted analyzer, its current version or a newer one. Everything else is stale. A newer one is a newer
    /// Spindle's: redoing it with older code made two installs (a cron job's and a newer build) take turns
    /// analysing the whole library again (`analyze --force` still redoes it). A row without an analyzer's
    /// version (what a migration leaves to have it redone) is stale: compared as it was, SQL's NULL made such
    /// a row neither current nor stale, and it was never analysed again.
    static func current(_ versions: [String: Int]) -> (sql: String, arguments: StatementArguments) {
        var sql = ofCurrentContent
        var arguments = StatementArguments()
        for name in versions.keys.sorted() {
            sql += " AND coalesce(json_extract(a.analyzer_versions, ?), 0) >= ?"
            arguments += ["$.\"\(name)\"", versions[name]!]
        }
        return ("(" + sql + ")", arguments)
    }

    /// SQL: the file `f` is due for analysis: no row `a`, a row that is not `current`, or one a run could not
    /// read the file for (`markUnread`; its results stay the file's for readers meanwhile). What the next run
    /// analyses and what status counts pending, and its negation what status counts current.
    static func due(_ versions: [String: Int]) -> (sql: String, arguments: StatementArguments) {
        let current = Self.current(versions)
        return ("(a.file_id IS NULL OR NOT \(current.sql) OR a.unread_at IS NOT NULL)", current.arguments)
    }

    /// Present files of `rootId` whose analysis by `versions`' analyzers is missing or stale; every present
    /// file with `force`.
    public static func filesToAnalyse(_ db: Database, rootId: Int64, versions: [String: Int], force: Bool) throws -> [FileToAnalyse] {
        let due = Self.due(versions)
        let stale = force ? "1" : due.sql
        return try Row.fetchAll(db, sql: """
            SELECT f.id, f.path, f.content_key, f.size, t.duration_s,
                   CASE WHEN \(ofCurrentContent) AND a.unread_at IS NULL THEN a.analyzer_versions END
            FROM files f
            LEFT JOIN analysis a ON a.file_id = f.id LEFT JOIN tracks t ON t.file_id = f.id
            WHERE f.root_id = ? AND f.status = 'present' AND \(stale)
            ORDER BY f.path
            """, arguments: [rootId] + (force ? [] : due.arguments)).map {
            try FileToAnalyse(fileId: $0.at(0), path: $0.at(1), contentKey: $0.at(2), size: $0.at(3), durationS: $0.at(4),
                              currentVersions: force ? [:] : AnalysisVersions.decode($0.at(5)))
        }
    }

    /// Present files of `rootId` holding one of `contentKeys` whose analysis is current for `versions` and ok,
    /// by content key: a copy of one of them can take its results (once the caller has proved the bytes equal).
    public static func analysedByContent(_ db: Database, rootId: Int64, contentKeys: Set<String>,
                                         versions: [String: Int]) throws -> [String: [(fileId: Int64, path: String)]] {
        let current = Self.current(versions)
        var found: [String: [(fileId: Int64, path: String)]] = [:]
        let keys = contentKeys.sorted()
        for start in Swift.stride(from: 0, to: keys.count, by: 500) {
            let chunk = Array(keys[start..<min(keys.count, start + 500)])
            let rows = try Row.fetchAll(db, sql: """
                SELECT f.content_key, f.id, f.path FROM files f JOIN analysis a ON a.file_id = f.id
                WHERE f.root_id = ? AND f.status = 'present' AND a.status = 'ok' AND \(current.sql)
                  AND f.content_key IN (\(databaseQuestionMarks(count: chunk.count)))
                ORDER BY f.path
                """, arguments: [rootId] + current.arguments + StatementArguments(chunk))
            for row in rows { try found[row.at(0), default: []].append((row.at(1), row.at(2))) }
        }
        return found
    }

    /// Gives `target` the stored analysis and visualiser frames of `source`, a file with the same bytes.
    public static func copy(from source: Int64, to target: Int64, in db: Database) throws {
        for table in [AnalysisRecord.databaseTableName, VisFramesRecord.databaseTableName] {
            let names = try db.columns(in: table).map(\.name).filter { $0 != "file_id" }.map { "\"\($0)\"" }
            let list = names.joined(separator: ", ")
            try db.execute(sql: "DELETE FROM \(table) WHERE file_id = ?", arguments: [target])
            try db.execute(sql: "INSERT INTO \(table) (file_id, \(list)) SELECT ?, \(list) FROM \(table) WHERE file_id = ?",
                           arguments: [target, source])
        }
        try db.execute(sql: "UPDATE analysis SET analyzed_at = ? WHERE file_id = ?", arguments: [Date(), target])
    }

    /// The analyzer versions stored for present files' present content, each set with how many files hold it
    /// (a library holds a handful of sets, so this reads 100,000 rows without decoding each).
    public static func storedVersions(_ db: Database) throws -> [(versions: [String: Int], files: Int)] {
        try Row.fetchAll(db, sql: """
            SELECT a.analyzer_versions, COUNT(*) FROM analysis a JOIN files f ON f.id = a.file_id
            WHERE f.status = 'present' AND \(ofCurrentContent) AND a.analyzer_versions IS NOT NULL
            GROUP BY a.analyzer_versions
            """).map { try (AnalysisVersions.decode($0.at(0)), $0.at(1)) }
    }

    /// Counts of present files whose analysis is current and ok, and of those whose analysis is due.
    public static func counts(_ db: Database, versions: [String: Int]) throws -> (current: Int, pending: Int) {
        let due = Self.due(versions)
        let ok = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM analysis a JOIN files f ON f.id = a.file_id
            WHERE f.status = 'present' AND a.status = 'ok' AND NOT \(due.sql)
            """, arguments: due.arguments) ?? 0
        let pending = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM files f LEFT JOIN analysis a ON a.file_id = f.id
            WHERE f.status = 'present' AND \(due.sql)
            """, arguments: due.arguments) ?? 0
        return (ok, pending)
    }

    private static func columns(_ db: Database) throws -> Set<String> {
        Set(try db.columns(in: AnalysisRecord.databaseTableName).map(\.name))
    }

    /// A file whose tags were rewritten with its audio proven unchanged (decoded digests equal) keeps its
    /// analysis: the results of content `from` become those of content `to`. A result of other content
    /// (already stale) is left stale.
    public static func carryOver(_ db: Database, fileId: Int64, from old: String, to new: String) throws {
        try db.execute(sql: "UPDATE analysis SET content_key = ? WHERE file_id = ? AND content_key = ?",
                       arguments: [new, fileId, old])
    }

    /// The analyses of files whose audio changed though their content key did not (PCM rewritten in place, its
    /// size and silent ends as they were) are made stale: no content key is theirs, so they are analysed again.
    public static func makeStale(_ db: Database, fileIds: [Int64]) throws {
        try forgetContent(of: AnalysisRecord.self, fileIds: fileIds, in: db)
    }

    /// A file another tool rewrote, whose audio key is the one its analysis was made with, keeps that analysis,
    /// unless the analysis was of part of the stream only. The key can hold before the audio does: a FLAC
    /// file's is its STREAMINFO, written first, so a file analysed while still being copied in has the complete
    /// file's key. False for such a partial result, which stays stale, and the complete file is analysed again.
    public static func carryOverRetagged(_ db: Database, fileId: Int64, from old: String, to new: String) throws -> Bool {
        let partial = try Bool.fetchOne(db, sql: "SELECT damage IS NOT NULL FROM analysis WHERE file_id = ? AND content_key = ?",
                                        arguments: [fileId, old]) ?? false
        guard !partial else { return false }
        try carryOver(db, fileId: fileId, from: old, to: new)
        return true
    }

    /// Stores a result. Results of analyzers that did not run are kept when they describe the same content
    /// (`analyze --only tempo` keeps loudness); when the content changed, only the analyzers that ran count
    /// as current.
    public static func save(_ write: AnalysisWrite, in db: Database) throws {
        let existing = try AnalysisRecord.fetchOne(db, key: write.fileId)
        var versions = existing?.contentKey == write.contentKey && write.contentKey != nil
            ? AnalysisVersions.decode(existing?.analyzerVersions) : [:]
        versions.merge(write.versions) { _, new in new }
        var row: [String: DatabaseValue] = [
            "content_key": write.contentKey.databaseValue, "analyzer_version": legacyAnalyzerVersion.databaseValue,
            "analyzer_versions": AnalysisVersions.encode(versions).databaseValue, "analyzed_at": Date().databaseValue,
            "status": write.status.rawValue.databaseValue, "error": write.error.databaseValue,
            "damage": write.damage.databaseValue, "codec": write.codec.databaseValue, "seconds": write.seconds.databaseValue,
            "crashes": 0.databaseValue, "unread_at": DatabaseValue.null,
        ]
        if write.status == .ok {
            row["duration_s"] = write.durationS.databaseValue
            row["sample_rate"] = write.sampleRate.databaseValue
            row["channels"] = write.channels.databaseValue
            row.merge(write.values) { fixed, _ in fixed }
        }
        try upsert(fileId: write.fileId, row, exists: existing != nil, in: db)
        if write.status == .ok, let frames = write.frames { try frames.store(db) }
        if write.status == .ok, let dimensions = write.featureDimensions {
            try saveFeatureDimensions(dimensions.names, version: dimensions.version, in: db)
        }
    }

    /// A run could not read the file (a read error, the file out of reach): the results of its content stay
    /// the file's, and the next run reads it again (`filesToAnalyse`).
    public static func markUnread(fileId: Int64, contentKey: String?, in db: Database) throws {
        try Store.markUnread(of: AnalysisRecord.self, fileId: fileId, contentKey: contentKey, in: db)
    }

    /// A worker died or hung on the file. The first time, the row stays stale so the next run retries (the
    /// crash may have been the machine's, an OOM kill); from the second, it is current for `versions` and left
    /// alone until the file changes or `--force`.
    public static func saveCrash(_ reason: String, fileId: Int64, contentKey: String?, versions: [String: Int],
                                 in db: Database) throws {
        let existing = try AnalysisRecord.fetchOne(db, key: fileId)
        let crashes = (existing?.crashes ?? 0) + 1
        try upsert(fileId: fileId, [
            "status": AnalysisRecord.Status.error.rawValue.databaseValue, "error": reason.databaseValue,
            "analyzed_at": Date().databaseValue, "analyzer_version": legacyAnalyzerVersion.databaseValue,
            "crashes": crashes.databaseValue, "unread_at": DatabaseValue.null,
            "content_key": (crashes >= 2 ? contentKey : nil).databaseValue,
            "analyzer_versions": AnalysisVersions.encode(versions).databaseValue,
        ], exists: existing != nil, in: db)
    }

    /// Inserts or updates the named columns of one row; a name that is not a column is a programming error
    /// (an analyzer output without its migration), reported as such.
    private static func upsert(fileId: Int64, _ row: [String: DatabaseValue], exists: Bool, in db: Database) throws {
        let known = try columns(db)
        let names = row.keys.sorted()
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw DatabaseError(message: "analysis has no column \(unknown): an analyzer's output needs a migration")
        }
        let values = StatementArguments(names.map { row[$0]! })
        if exists {
            try db.execute(sql: "UPDATE analysis SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) WHERE file_id = ?",
                           arguments: values + [fileId])
        } else {
            var insert = row
            insert["analyzer_version"] = insert["analyzer_version"] ?? legacyAnalyzerVersion.databaseValue
            insert["analyzed_at"] = insert["analyzed_at"] ?? Date().databaseValue
            let all = insert.keys.sorted()
            try db.execute(sql: "INSERT INTO analysis (file_id, \(all.joined(separator: ", "))) VALUES (?\(String(repeating: ", ?", count: all.count)))",
                           arguments: [fileId] + StatementArguments(all.map { insert[$0]! }))
        }
    }

    /// Records what each position of a version's feature vector means, once per version.
    static func saveFeatureDimensions(_ names: [String], version: Int, in db: Database) throws {
        let known = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feature_dimensions WHERE version = ?", arguments: [version]) ?? 0
        guard known != names.count else { return }
        try db.execute(sql: "DELETE FROM feature_dimensions WHERE version = ?", arguments: [version])
        for (position, name) in names.enumerated() {
            try db.execute(sql: "INSERT INTO feature_dimensions (version, position, name) VALUES (?, ?, ?)",
                           arguments: [version, position, name])
        }
    }

    /// Present files whose current analysis holds a feature vector.
    public static func featureVectorCount(_ db: Database) throws -> Int { try presentCount(db, holding: "features") }

    /// Present files whose current analysis holds the tagger's embedding.
    public static func embeddingCount(_ db: Database) throws -> Int { try presentCount(db, holding: "embedding") }

    /// Present files whose current analysis has `column` (one of this file's literals, never input) set.
    private static func presentCount(_ db: Database, holding column: String) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM analysis a JOIN files f ON f.id = a.file_id
            WHERE f.status = 'present' AND a.status = 'ok' AND a.\(column) IS NOT NULL AND \(ofCurrentContent)
            """) ?? 0
    }

    /// The stored visualiser frames of a file, by its path relative to its root, when of its present content.
    public static func frames(_ db: Database, rootPath: String, path: String) throws -> VisFramesRecord? {
        try VisFramesRecord.fetchOne(db, sql: """
            SELECT v.* FROM vis_frames v JOIN files f ON f.id = v.file_id
            JOIN analysis a ON a.file_id = f.id AND \(ofCurrentContent)
            JOIN library_roots r ON r.id = f.root_id WHERE r.path = ? AND f.path = ?
            """, arguments: [rootPath, path])
    }

    /// The encoded gating blocks of a file's loudness analysis (for album gain).
    public static func loudnessBlocks(_ db: Database, fileId: Int64) throws -> Data? {
        try Data.fetchOne(db, sql: "SELECT loudness_blocks FROM analysis WHERE file_id = ?", arguments: [fileId])
    }

    /// What write-analysis needs of each analysed file of a root.
    public struct ForTags: Sendable {
        public var fileId: Int64
        public var path: String
        public var codec: String?
        public var bpm: Double?
        public var bpmConfidence: Double?
        /// As stored: "A minor", "C# major".
        public var key: String?
        public var lufs: Double?
        public var truePeakDB: Double?
        public var album: String?
        public var albumArtist: String?
        public var musicbrainzAlbumId: String?
        /// Whether the tempo analyzer's result is stored (a nil `bpm` then means the track has no tempo).
        public var tempoMeasured: Bool
        /// Whether the features analyzer's is (a nil `key` then means the track has no key).
        public var keyMeasured: Bool
        /// The file's first value of each tag `write-analysis` may take back (BPM, INITIALKEY, KEY), as last read.
        public var tagged: [String: String]
        /// The content key of the file the analysis was made of; when it is not the file's as last scanned, the
        /// file changed since (another recording copied over it, its audio edited) and the results are not its.
        public var analysedContent: String?
        public var current: Bool
        /// Whether the analysis is of part of the file only (`damage`: cut short, or still being copied then).
        public var partial: Bool
        /// The tagger's tag probabilities (float32 blob), when it ran.
        public var tagProbabilities: Data?
        /// Whether the results may go into the file's tags: of its present content, and of all of it.
        public var writable: Bool { current && !partial }
    }

    /// The tags `forTags` reads back from each file: those `write-analysis` writes and may take back.
    public static let withdrawableTags = ["BPM", "INITIALKEY", "KEY"]

    public static func forTags(_ db: Database, rootPath: String) throws -> [ForTags] {
        // Columns 16… hold `withdrawableTags`, in order.
        func tagged(_ row: Row) throws -> [String: String] {
            try Dictionary(uniqueKeysWithValues: withdrawableTags.enumerated().compactMap { i, name in
                (try row.at(16 + i) as String?).map { (name, $0) }
            })
        }
        return try Row.fetchAll(db, sql: """
            SELECT f.id, f.path, a.codec, a.bpm, a.lufs_integrated, a.true_peak_dbtp,
                   t.album, t.album_artist, a.key, a.bpm_confidence, t.musicbrainz_album_id,
                   json_extract(a.analyzer_versions, '$.tempo') IS NOT NULL,
                   json_extract(a.analyzer_versions, '$.features') IS NOT NULL,
                   a.content_key, \(ofCurrentContent), a.damage IS NOT NULL,
                   \(withdrawableTags.map { "json_extract(t.properties, '$.\($0)[0]')" }.joined(separator: ", ")),
                   a.tag_probabilities
            FROM files f JOIN library_roots r ON r.id = f.root_id
            JOIN analysis a ON a.file_id = f.id AND a.status = 'ok' LEFT JOIN tracks t ON t.file_id = f.id
            WHERE r.path = ? AND f.status = 'present' ORDER BY f.path
            """, arguments: [rootPath]).map {
            try ForTags(fileId: $0.at(0), path: $0.at(1), codec: $0.at(2), bpm: $0.at(3), bpmConfidence: $0.at(9), key: $0.at(8),
                        lufs: $0.at(4), truePeakDB: $0.at(5), album: $0.at(6), albumArtist: $0.at(7), musicbrainzAlbumId: $0.at(10),
                        tempoMeasured: $0.at(11), keyMeasured: $0.at(12), tagged: tagged($0), analysedContent: $0.at(13),
                        current: $0.at(14), partial: $0.at(15), tagProbabilities: $0.at(16 + withdrawableTags.count))
        }
    }
}
