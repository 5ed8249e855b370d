import Foundation
import GRDB
@testable import Store
import XCTest

final class MigrationTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// The schema as one file: every table, index, view and trigger, as SQLite keeps them.
    func schema(_ database: SpindleDatabase) throws -> String {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND sql IS NOT NULL
                ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, name
                """).map { (try $0.at(0) as String) + ";\n" }.joined(separator: "\n")
        }
    }

    /// docs/schema.sql is the schema the migrations make, for a reader to see in one file. A database brought up
    /// one migration at a time, in as many openings, ends with the same schema as a new one, and both match the
    /// file. After a new migration: SPINDLE_WRITE_SCHEMA=1 swift test --filter testTheSchemaIsDocsSchemaSQL
    func testTheSchemaIsDocsSchemaSQL() throws {
        let fresh = try schema(try SpindleDatabase(path: dir + "/fresh.db"))
        for name in SpindleDatabase.migrationNames {
            _ = try SpindleDatabase(path: dir + "/stepwise.db", upTo: name)
        }
        XCTAssertEqual(try schema(try SpindleDatabase(path: dir + "/stepwise.db")), fresh)
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/schema.sql")
        let header = "-- Spindle's database schema, as the migrations in Sources/Store/Migrations/ make it (checked by\n"
            + "-- MigrationTests.testTheSchemaIsDocsSchemaSQL). Read it; never run it: databases are made by their migrations.\n\n"
        if ProcessInfo.processInfo.environment["SPINDLE_WRITE_SCHEMA"] == "1" {
            try (header + fresh).write(to: file, atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), header + fresh,
                       "docs/schema.sql is not the schema the migrations make: SPINDLE_WRITE_SCHEMA=1 swift test --filter testTheSchemaIsDocsSchemaSQL")
    }

    func testNewDatabaseHasEveryTableInWALMode() throws {
        let db = try SpindleDatabase(path: dir + "/a/b/spindle.db")
        try db.writer.read { db in
            for table in ["library_roots", "files", "tracks", "runs", "run_files", "analysis", "vis_frames", "composite_genres", "genre_memberships", "navidrome_tracks", "scan_issues", "tag_edits", "tag_batches"] {
                XCTAssertTrue(try db.tableExists(table), table)
            }
            XCTAssertTrue(try db.viewExists("smart_dj_profiles"))
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA journal_mode"), "wal")
        }
        XCTAssertEqual(try db.appliedMigrations(), SpindleDatabase.migrationNames)
    }

    /// Undo asks, for each file of a batch, which other batches wrote it. Looked up by the batch alone, each
    /// question read every edit of the earlier batches: undoing a 50,000-file batch after a few library-wide
    /// `write-analysis` batches would have taken hours. The plans SQLite makes for the queries undo runs must
    /// find the file's edits through an index on the file or the path.
    func testUndoFindsAFilesEditsThroughAnIndex() throws {
        let database = try SpindleDatabase(path: dir + "/u.db")
        try database.writer.write { db in
            var statements: [String] = []
            db.trace { event in
                if case .statement(let statement) = event { statements.append(statement.expandedSQL) }
            }
            _ = try TagBatchQueries.laterOverwrites(db, batch: 3)
            try TagBatchQueries.restored(db, before: 3, fileId: 7, path: "A/b.flac", to: (size: 1, mtimeNs: 2, contentKey: "k"))
            db.trace(options: [], nil)
            let asked = statements.filter { $0.contains("tag_edits") }
            XCTAssertEqual(asked.count, 2, "\(statements)")
            for sql in asked {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                XCTAssertTrue(plan.contains { $0.contains("INDEX tag_edits_on_file") }, "\(sql): \(plan)")
                XCTAssertTrue(plan.contains { $0.contains("INDEX tag_edits_on_path") }, "\(sql): \(plan)")
            }
        }
    }

    func testOlderDatabaseUpgradesInPlaceKeepingItsRows() throws {
        let path = dir + "/old.db"
        do {
            let old = try SpindleDatabase(path: path, upTo: "v1-file-index")
            // Rows as v1 wrote them: its columns only (today's records carry columns added since).
            try old.writer.write { db in
                try db.execute(sql: "INSERT INTO library_roots (id, path, added_at) VALUES (1, '/music', ?)", arguments: [Date()])
                try db.execute(sql: """
                    INSERT INTO files (root_id, path, name, size, mtime_ns, inode, content_key, status, first_seen_at, changed_at)
                    VALUES (1, 'A/b.flac', 'b.flac', 10, 1, 2, 'k', 'present', ?, ?)
                    """, arguments: [Date(), Date()])
            }
            XCTAssertFalse(try old.writer.read { try $0.tableExists("analysis") })
        }
        let upgraded = try SpindleDatabase(path: path)
        XCTAssertEqual(try upgraded.appliedMigrations(), SpindleDatabase.migrationNames)
        try upgraded.writer.read { db in
            XCTAssertTrue(try db.tableExists("analysis"))
            XCTAssertEqual(try FileRecord.fetchAll(db).map(\.path), ["A/b.flac"])
            // v9 gave the upgraded database an identity, for merges.
            XCTAssertNotNil(try String.fetchOne(db, sql: "SELECT value FROM database_info WHERE key = 'id'"))
        }
    }

    // Big-endian WAVs were decoded by FFmpeg, byte-swapped, before e332657: their stored analysis is garbage.
    // Upgrading makes stale every .wav analysis FFmpeg's PCM decoders made, and nothing else.
    func testWAVsDecodedByFFmpegAreAnalysedAgainAfterTheUpgrade() throws {
        let path = dir + "/wav.db"
        let rows = [("a.wav", "pcm_s16le"), ("b.wav", "pcm"), ("c.w64", "pcm_s16le"), ("D.WAV", "pcm_s16be"),
                    ("e.wave", "pcm_f32le"), ("f.flac", "flac"), ("g.wav", "adpcm_ms")]
        do {
            let old = try SpindleDatabase(path: path, upTo: "v13-audio-key")
            try old.writer.write { db in
                try db.execute(sql: "INSERT INTO library_roots (id, path, added_at) VALUES (1, '/music', ?)", arguments: [Date()])
                for (i, (name, codec)) in rows.enumerated() {
                    try db.execute(sql: """
                        INSERT INTO files (id, root_id, path, name, size, mtime_ns, content_key, status, first_seen_at, changed_at)
                        VALUES (?, 1, ?, ?, 10, 1, 'k', 'present', ?, ?)
                        """, arguments: [i + 1, name, name.lowercased(), Date(), Date()])
                    try db.execute(sql: """
                        INSERT INTO analysis (file_id, content_key, analyzer_version, analyzed_at, status, codec, analyzer_versions)
                        VALUES (?, 'k', 3, ?, 'ok', ?, '{"tempo":10}')
                        """, arguments: [i + 1, Date(), codec])
                }
            }
        }
        let upgraded = try SpindleDatabase(path: path)
        let versions = try upgraded.writer.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
                SELECT f.path, a.analyzer_versions FROM analysis a JOIN files f ON f.id = a.file_id
                """).map { ($0[0] as String, $0[1] as String) })
        }
        XCTAssertEqual(versions, ["a.wav": "{}", "b.wav": "{\"tempo\":10}", "c.w64": "{\"tempo\":10}", "D.WAV": "{}",
                                  "e.wave": "{}", "f.flac": "{\"tempo\":10}", "g.wav": "{\"tempo\":10}"])
    }

    // Ogg Vorbis files whose audio began on the header page were analysed short from the front: their analysed
    // duration falls short of the tagged one. Only those are analysed again; healthy Vorbis, Opus (libsndfile
    // decoded it whole), files without tags and other formats keep their results.
    func testOggVorbisAnalysedShortIsAnalysedAgainAfterTheUpgrade() throws {
        let path = dir + "/ogg.db"
        let rows: [(String, String, Double?, Double)] = [
            ("crash.ogg", "vorbis", 1.311, 0.923741), ("organ.oga", "vorbis", 4.763, 4.489002),
            ("whole.ogg", "vorbis", 42.468, 42.467846), ("longer.ogg", "vorbis", 0.394, 0.416508),
            ("untagged.ogg", "vorbis", nil, 0.923741), ("a.opus", "opus", 1.311, 0.923741), ("b.mp3", "mp3", 1.311, 0.923741)]
        do {
            let old = try SpindleDatabase(path: path, upTo: "v15-composed-names")
            try old.writer.write { db in
                try insertRoot(db)
                for (i, (name, codec, tagged, decoded)) in rows.enumerated() {
                    try insertFile(db, id: i + 1, path: name)
                    try db.execute(sql: """
                        INSERT INTO analysis (file_id, content_key, analyzer_version, analyzed_at, status, codec, duration_s,
                                              analyzer_versions)
                        VALUES (?, 'k', 3, ?, 'ok', ?, ?, '{"tempo":10}')
                        """, arguments: [i + 1, Date(), codec, decoded])
                    if let tagged {
                        try db.execute(sql: "INSERT INTO tracks (file_id, content_key, duration_s, read_at) VALUES (?, 'k', ?, ?)",
                                       arguments: [i + 1, tagged, Date()])
                    }
                }
            }
        }
        let upgraded = try SpindleDatabase(path: path)
        let stale = try upgraded.writer.read { db in
            try String.fetchAll(db, sql: """
                SELECT f.path FROM analysis a JOIN files f ON f.id = a.file_id WHERE a.analyzer_versions = '{}' ORDER BY f.path
                """)
        }
        XCTAssertEqual(stale, ["crash.ogg", "organ.oga"])
    }

    // Vorbis and Opus surround was metered in the codecs' channel order: only those rows' loudness is made stale,
    // and their other analyzers stay current; stereo Vorbis, 5.1 FLAC and three-channel Opus keep everything.
    func testSurroundOggIsMeteredAgainAfterTheUpgrade() throws {
        let path = dir + "/surround.db"
        let rows: [(String, String, Int)] = [("a.ogg", "vorbis", 6), ("b.opus", "opus", 8), ("c.ogg", "vorbis", 2),
                                             ("d.flac", "flac", 6), ("e.opus", "opus", 3), ("f.opus", "opus", 5)]
        let (_, versions) = try upgrade(path, rows, from: "v16-reanalyse-ogg-vorbis-decoded-short", to: "v17-remeter-surround-ogg")
        XCTAssertEqual(versions, ["a.ogg {\"tempo\":11}", "b.opus {\"tempo\":11}", "c.ogg {\"loudness\":2,\"tempo\":11}",
                                  "d.flac {\"loudness\":2,\"tempo\":11}", "e.opus {\"loudness\":2,\"tempo\":11}",
                                  "f.opus {\"tempo\":11}"])
    }

    // Four channels were weighed as four fronts and a stated layout (2.1's LFE, 4.0's back centre) not at all:
    // every file of three channels or more is metered again, and only its loudness.
    func testMultichannelFilesAreMeteredAgainAfterTheUpgrade() throws {
        let path = dir + "/layouts.db"
        let rows: [(String, String, Int)] = [("mono.flac", "flac", 1), ("stereo.wav", "pcm", 2), ("2.1.wav", "pcm", 3),
                                             ("quad.flac", "flac", 4), ("5.1.m4a", "aac", 6)]
        let (_, versions) = try upgrade(path, rows, from: "v17-remeter-surround-ogg", to: "v18-remeter-stated-layouts")
        XCTAssertEqual(versions, ["mono.flac {\"loudness\":2,\"tempo\":11}", "stereo.wav {\"loudness\":2,\"tempo\":11}",
                                  "2.1.wav {\"tempo\":11}", "quad.flac {\"tempo\":11}", "5.1.m4a {\"tempo\":11}"])
        // Today's query needs today's schema: the migrations after v18 leave these rows as they are.
        let due = try SpindleDatabase(path: path).writer.read { db in
            try AnalysisQueries.filesToAnalyse(db, rootId: 1, versions: ["loudness": 2, "tempo": 11], force: false).map(\.path)
        }
        XCTAssertEqual(due, ["2.1.wav", "5.1.m4a", "quad.flac"])
    }

    /// Tracks read at one migration (each row a file of that name, with the codec, year and album artist read),
    /// then the paths the next scan reads again once the database is opened at the newest.
    func tracksReadAgain(_ path: String, from migration: String,
                         _ rows: [(name: String, codec: String, year: Int?, albumArtist: String?)]) throws -> [String] {
        do {
            let old = try SpindleDatabase(path: path, upTo: migration)
            try old.writer.write { db in
                try insertRoot(db)
                for (i, row) in rows.enumerated() {
                    try insertFile(db, id: i + 1, path: row.name)
                    try db.execute(sql: "UPDATE files SET content_key = 'k' WHERE id = ?", arguments: [i + 1])
                    try db.execute(sql: """
                        INSERT INTO tracks (file_id, content_key, codec, year, album_artist, read_at) VALUES (?, 'k', ?, ?, ?, ?)
                        """, arguments: [i + 1, row.codec, row.year, row.albumArtist, Date()])
                }
            }
        }
        let upgraded = try SpindleDatabase(path: path)
        return try upgraded.writer.read { db in try TrackQueries.filesToRead(db, rootId: 1).map(\.path) }
    }

    // Tracks whose date sat under YEAR or RELEASEDATE were read without a year, and those with foobar2000's
    // "ALBUM ARTIST" without an album artist: only tracks lacking one are read again (their content key no
    // longer matches the file's).
    func testTracksWithoutAYearOrAlbumArtistAreReadAgainAfterTheUpgrade() throws {
        let toRead = try tracksReadAgain(dir + "/years.db", from: "v18-remeter-stated-layouts", [
            ("complete.flac", "flac", 1997, "Aya"), ("undated.ogg", "vorbis", nil, "Aya"), ("no-album-artist.ogg", "vorbis", 1997, nil),
        ])
        XCTAssertEqual(toRead, ["no-album-artist.ogg", "undated.ogg"])
    }

    // WMA files' key and ReplayGain attributes were not read, nor FFmpeg's "ALBUM_ARTIST" in APE tags: WMA tracks
    // and tracks without an album artist are read again, no others.
    func testWMATracksAndTracksWithoutAlbumArtistAreReadAgainAfterTheUpgrade() throws {
        let toRead = try tracksReadAgain(dir + "/wma.db", from: "v20-retempo-half-time", [
            ("complete.flac", "flac", 1997, "Aya"), ("a.wma", "wma", 1997, "Aya"), ("converted.wv", "wavpack", 1997, nil),
        ])
        XCTAssertEqual(toRead, ["a.wma", "converted.wv"])
    }

    // A FLAC stating no length was decoded whole but marked "truncated: decoded N of 9223372036854775807 frames":
    // that mark goes, and a real truncation (or another format's) stays.
    func testFLACsMarkedTruncatedForWantOfALengthAreWholeAfterTheUpgrade() throws {
        let files = [("streamed.flac", "flac", 2), ("cut.flac", "flac", 2), ("cut.opus", "opus", 2)]
        let (upgraded, _) = try upgrade(dir + "/streamed.db", files, from: "v21-reread-wma-and-ffmpeg-album-artists") { db in
            let marks = ["truncated: decoded 441000 of 9223372036854775807 frames", "truncated: decoded 441000 of 882000 frames",
                         "truncated: decoded 48000 of 9223372036854775807 frames"]
            for (id, mark) in marks.enumerated() {
                try db.execute(sql: "UPDATE analysis SET damage = ? WHERE file_id = ?", arguments: [mark, id + 1])
            }
        }
        let damage = try upgraded.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT damage FROM analysis ORDER BY file_id").map { $0[0] as String? }
        }
        XCTAssertEqual(damage, [nil, "truncated: decoded 441000 of 882000 frames", "truncated: decoded 48000 of 9223372036854775807 frames"])
    }

    // MPEG audio in a WAV was decoded short by libsndfile: those analyses are stale after the upgrade; MP3 and
    // MP2 files and the other WAVs keep theirs.
    func testMPEGAudioInWAVsIsAnalysedAgainAfterTheUpgrade() throws {
        let files = [("a.wav", "mp3", 2), ("B.WAV", "mp2", 2), ("c.mp3", "mp3", 2), ("d.MP2", "mp2", 2), ("e.wav", "pcm", 2)]
        let (_, versions) = try upgrade(dir + "/mpeg.db", files, from: "v24-tag-edits-by-file")
        XCTAssertEqual(versions, ["a.wav {}", "B.WAV {}", #"c.mp3 {"loudness":2,"tempo":11}"#,
                                  #"d.MP2 {"loudness":2,"tempo":11}"#, #"e.wav {"loudness":2,"tempo":11}"#])
    }

    // A FLAC's audio key holds its frames' length since v27: keys of the old form are computed again, by the
    // scans' backfill, so a cut FLAC is not taken for a retagged one; other keys stay.
    func testFLACAudioKeysOfTheOldFormAreComputedAgainAfterTheUpgrade() throws {
        let path = dir + "/flackeys.db"
        let keys = ["a.flac": "flac:00ab", "b.oga": "oggflac:00ab", "c.flac": "a:0123456789abcdef", "d.mp3": "a:fedcba9876543210"]
        do {
            let old = try SpindleDatabase(path: path, upTo: "v26-navidrome-tracks-by-file")
            try old.writer.write { db in
                try db.execute(sql: "INSERT INTO library_roots (id, path, added_at) VALUES (1, '/music', ?)", arguments: [Date()])
                for (i, (name, key)) in keys.sorted(by: { $0.key < $1.key }).enumerated() {
                    try db.execute(sql: """
                        INSERT INTO files (id, root_id, path, name, size, mtime_ns, content_key, audio_key, status, first_seen_at, changed_at)
                        VALUES (?, 1, ?, ?, 10, 1, 'k', ?, 'present', ?, ?)
                        """, arguments: [i + 1, name, name, key, Date(), Date()])
                }
            }
        }
        let upgraded = try SpindleDatabase(path: path)
        let after = try upgraded.writer.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT path, audio_key FROM files").map { ($0[0] as String, $0[1] as String?) })
        }
        XCTAssertEqual(after, ["a.flac": nil, "b.oga": nil, "c.flac": "a:0123456789abcdef", "d.mp3": "a:fedcba9876543210"])
    }

    // A WAV's or AIFF's audio key samples the middle of its samples too since v28: keys of the old form are
    // computed again by the scans' backfill.
    func testPCMAudioKeysOfTheOldFormAreComputedAgainAfterTheUpgrade() throws {
        let path = dir + "/pcmkeys.db"
        let names = ["a.wav", "B.AIFF", "c.aif", "d.mp3", "e.flac"]
        do {
            let old = try SpindleDatabase(path: path, upTo: "v27-flac-audio-keys-with-length")
            try old.writer.write { db in
                try db.execute(sql: "INSERT INTO library_roots (id, path, added_at) VALUES (1, '/music', ?)", arguments: [Date()])
                for (i, name) in names.enumerated() {
                    try db.execute(sql: """
                        INSERT INTO files (id, root_id, path, name, size, mtime_ns, content_key, audio_key, status, first_seen_at, changed_at)
                        VALUES (?, 1, ?, ?, 10, 1, 'k', 'a:0123456789abcdef', 'present', ?, ?)
                        """, arguments: [i + 1, name, name.lowercased(), Date(), Date()])
                }
            }
        }
        let upgraded = try SpindleDatabase(path: path)
        let kept = try upgraded.writer.read { try String.fetchAll($0, sql: "SELECT path FROM files WHERE audio_key IS NOT NULL ORDER BY path") }
        XCTAssertEqual(kept, ["d.mp3", "e.flac"])
    }

    // FLACs whose decoding libsndfile stopped at a damaged frame are analysed again (libFLAC decodes on).
    func testFLACsStoppedByDamageAreAnalysedAgainAfterTheUpgrade() throws {
        let files = [("a.flac", "flac", 2), ("b.flac", "flac", 2), ("c.flac", "flac", 2), ("d.mp3", "mp3", 2)]
        let (_, versions) = try upgrade(dir + "/flacdamage.db", files, from: "v28-pcm-audio-keys-spread",
                                        to: "v29-reanalyse-flac-stopped-by-damage") { db in
            try db.execute(sql: "UPDATE analysis SET damage = 'decoding stopped: Error : flac decoder lost sync.' WHERE file_id IN (1, 4)")
            try db.execute(sql: "UPDATE analysis SET damage = 'truncated: decoded 10 of 20 frames' WHERE file_id = 2")
        }
        XCTAssertEqual(versions, ["a.flac {}", #"b.flac {"loudness":2,"tempo":11}"#, #"c.flac {"loudness":2,"tempo":11}"#,
                                  #"d.mp3 {"loudness":2,"tempo":11}"#])
    }

    // MP3s whose decoding libmpg123 stopped at junk inside the stream are analysed again (FFmpeg decodes past it).
    func testMP3sStoppedByJunkAreAnalysedAgainAfterTheUpgrade() throws {
        let files = [("a.mp3", "mp3", 2), ("b.mp3", "mp3", 2), ("c.flac", "flac", 2)]
        let (_, versions) = try upgrade(dir + "/mp3junk.db", files, from: "v29-reanalyse-flac-stopped-by-damage") { db in
            try db.execute(sql: "UPDATE analysis SET damage = 'decoding stopped: Failed to find valid MPEG data within limit on resync. (code 28)' WHERE file_id IN (1, 3)")
        }
        XCTAssertEqual(versions, ["a.mp3 {}", #"b.mp3 {"loudness":2,"tempo":11}"#, #"c.flac {"loudness":2,"tempo":11}"#])
        // Analysed again since, junk after the last frame still stopped libmpg123 (or hid an Ogg file's end from
        // libsndfile): analysed again once more.
        let tails = files + [("d.ogg", "vorbis", 2), ("e.opus", "opus", 2)]
        let (_, again) = try upgrade(dir + "/tails.db", tails, from: "v30-reanalyse-mpeg-stopped-by-junk",
                                     to: "v31-reanalyse-files-with-junk-after-the-music") { db in
            try db.execute(sql: "UPDATE analysis SET damage = 'decoding stopped: Failed to find valid MPEG data within limit on resync. (code 28)' WHERE file_id = 2")
            try db.execute(sql: "UPDATE analysis SET damage = 'truncated: decoded 540224 frames, and the Ogg stream''s end is missing' WHERE file_id = 4")
            try db.execute(sql: "UPDATE analysis SET damage = 'corrupt data: 3 packets skipped' WHERE file_id = 5")
        }
        XCTAssertEqual(again, [#"a.mp3 {"loudness":2,"tempo":11}"#, "b.mp3 {}", #"c.flac {"loudness":2,"tempo":11}"#, "d.ogg {}",
                               #"e.opus {"loudness":2,"tempo":11}"#])
    }

    // Files that could not be stat'ed or opened when their turn came (a disk not mounted) kept a current error
    // row and were never read again: those rows are stale after the upgrade; a file that is no audio stays failed.
    func testFilesThatCouldNotBeReachedAreReadAgainAfterTheUpgrade() throws {
        let files = [("a.flac", "flac", 2), ("b.flac", "flac", 2), ("c.flac", "flac", 2), ("d.flac", "flac", 2)]
        let (upgraded, _) = try upgrade(dir + "/unreached.db", files, from: "v34-mount-points-inside-roots") { db in
            try db.execute(sql: "UPDATE analysis SET status = 'error', error = 'cannot stat (No such file or directory)' WHERE file_id = 1")
            try db.execute(sql: "UPDATE analysis SET status = 'error', error = 'cannot open for reading (Permission denied)' WHERE file_id = 2")
            try db.execute(sql: "UPDATE analysis SET status = 'error', error = 'not an audio file' WHERE file_id = 3")
            for id in 1...2 {
                try db.execute(sql: "INSERT INTO tracks (file_id, content_key, read_at, error) VALUES (?, 'k\(id)', ?, ?)",
                               arguments: [id, Date(), id == 1 ? "not a readable regular file" : "TagLib cannot read it"])
            }
        }
        try upgraded.writer.read { db in
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT coalesce(content_key, '-') FROM analysis ORDER BY file_id"),
                           ["-", "-", "k", "k"])
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT coalesce(content_key, '-') FROM tracks ORDER BY file_id"), ["-", "k2"])
        }
    }

    /// libsndfile's "decoding stopped" at a read error had stored partial results of a whole file: those are
    /// analysed again; a file truly cut short, or damaged in its own bytes, keeps its partial results.
    func testResultsOfADecodeStoppedByAReadErrorAreAnalysedAgainAfterTheUpgrade() throws {
        let files = [("a.wav", "pcm", 2), ("b.m4a", "aac", 2), ("c.flac", "flac", 2)]
        let (upgraded, _) = try upgrade(dir + "/eio.db", files, from: "v35-retry-files-that-could-not-be-reached") { db in
            try db.execute(sql: "UPDATE analysis SET damage = 'decoding stopped: System error : Input/output error.' WHERE file_id = 1")
            try db.execute(sql: "UPDATE analysis SET damage = 'truncated: decoded 100 of about 200 frames' WHERE file_id = 2")
            try db.execute(sql: "UPDATE analysis SET damage = 'corrupt data: 3 frames could not be decoded' WHERE file_id = 3")
        }
        let due = try upgraded.writer.read { db in
            try AnalysisQueries.filesToAnalyse(db, rootId: 1, versions: ["loudness": 2], force: false).map(\.path)
        }
        XCTAssertEqual(due, ["a.wav"])
    }

    // Tempo version 12 changes only results version 11 had halved (at most 100 BPM): those are measured again,
    // the others are taken as version 12's, so a library is not decoded again for them.
    func testOnlyTemposThatMayHaveBeenHalvedAreMeasuredAgain() throws {
        let path = dir + "/tempo.db"
        let files = [("a.flac", "flac", 2), ("b.flac", "flac", 2), ("c.flac", "flac", 2), ("d.flac", "flac", 2)]
        let (upgraded, versions) = try upgrade(path, files, from: "v19-reread-tags-without-year-or-album-artist") { db in
            let rows: [(Int, Double?, String)] = [(1, 70, #"{"loudness":2,"tempo":11}"#), (2, 140, #"{"loudness":2,"tempo":11}"#),
                                                  (3, nil, #"{"loudness":2,"tempo":11}"#), (4, 140, #"{"loudness":2,"tempo":10}"#)]
            for (id, bpm, versions) in rows {
                try db.execute(sql: "UPDATE analysis SET bpm = ?, analyzer_versions = ? WHERE file_id = ?", arguments: [bpm, versions, id])
            }
        }
        XCTAssertEqual(versions, [#"a.flac {"loudness":2}"#, #"b.flac {"loudness":2,"tempo":12}"#, #"c.flac {"loudness":2,"tempo":12}"#,
                                  #"d.flac {"loudness":2,"tempo":10}"#])
        // The next run analyses exactly those. A row without an analyzer's version had been neither current nor
        // due (SQL's NULL), so no migration that removed one (v14, v16, v17) ever had a file analysed again.
        let wanted = ["loudness": 2, "tempo": 12]
        let due = try upgraded.writer.read { db in
            try AnalysisQueries.filesToAnalyse(db, rootId: 1, versions: wanted, force: false).map(\.path)
        }
        XCTAssertEqual(due, ["a.flac", "d.flac"])
        XCTAssertEqual(try upgraded.writer.read { db in try AnalysisQueries.counts(db, versions: wanted) }.pending, 2)
    }

    // Names and path words indexed before v15 kept a Mac's decomposed form (Hangul as jamo), which the composed
    // names players send never matched: the upgrade recomputes both in composed form.
    func testDecomposedNamesAreIndexedComposedAfterTheUpgrade() throws {
        let path = dir + "/nfd.db"
        let onDisk = "하늘빛/여름밤.flac".decomposedStringWithCanonicalMapping
        do {
            let old = try SpindleDatabase(path: path, upTo: "v14-reanalyse-wav-decoded-by-ffmpeg")
            try old.writer.write { db in
                try db.execute(sql: "INSERT INTO library_roots (id, path, added_at) VALUES (1, '/music', ?)", arguments: [Date()])
                try db.execute(sql: """
                    INSERT INTO files (id, root_id, path, name, size, mtime_ns, status, first_seen_at, changed_at)
                    VALUES (1, 1, ?, ?, 10, 1, 'present', ?, ?)
                    """, arguments: [onDisk, "여름밤.flac".decomposedStringWithCanonicalMapping, Date(), Date()])
                // What the index held before: the words as decomposed as the path.
                try db.execute(sql: "DELETE FROM file_words WHERE rowid = 1")
                try db.execute(sql: "INSERT INTO file_words (rowid, words) VALUES (1, ?)",
                               arguments: ["하늘빛 여름밤".decomposedStringWithCanonicalMapping])
            }
        }
        let upgraded = try SpindleDatabase(path: path)
        try upgraded.writer.read { db in
            XCTAssertEqual(try FileQueries.presentPaths(db, rootId: 1, named: "여름밤.flac").map { Array($0.utf8) }, [Array(onDisk.utf8)])
            XCTAssertEqual(try FileQueries.presentPaths(db, rootId: 1, sharing: ["하늘빛", "여름밤"], atLeast: 2).count, 1)
        }
    }

    private func insertRoot(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO library_roots (id, path, added_at) VALUES (1, '/music', ?)", arguments: [Date()])
    }

    /// A present file of root 1 with content key 'k', as a scan written by an older version left it.
    private func insertFile(_ db: Database, id: Int, path: String) throws {
        try db.execute(sql: """
            INSERT INTO files (id, root_id, path, name, size, mtime_ns, content_key, status, first_seen_at, changed_at)
            VALUES (?, 1, ?, ?, 10, 1, 'k', 'present', ?, ?)
            """, arguments: [id, path, path, Date(), Date()])
    }

    /// Files analysed by an older version, given as (path, codec, channels), with loudness and tempo current.
    private func insertAnalysed(_ db: Database, _ rows: [(String, String, Int)]) throws {
        try insertRoot(db)
        for (i, (name, codec, channels)) in rows.enumerated() {
            try insertFile(db, id: i + 1, path: name)
            try db.execute(sql: """
                INSERT INTO analysis (file_id, content_key, analyzer_version, analyzed_at, status, codec, channels,
                                      analyzer_versions)
                VALUES (?, 'k', 3, ?, 'ok', ?, ?, '{"loudness":2,"tempo":11}')
                """, arguments: [i + 1, Date(), codec, channels])
        }
    }

    /// `rows` analysed by a database migrated up to `from`, then opened up to `to` (every migration when nil):
    /// the upgraded database and each file's "path versions", in the order the rows were given. `prepare` edits
    /// the old rows first.
    private func upgrade(_ path: String, _ rows: [(String, String, Int)], from: String, to: String? = nil,
                         prepare: (Database) throws -> Void = { _ in }) throws -> (SpindleDatabase, [String]) {
        do {
            let old = try SpindleDatabase(path: path, upTo: from)
            try old.writer.write { db in
                try insertAnalysed(db, rows)
                try prepare(db)
            }
        }
        let upgraded = try to.map { try SpindleDatabase(path: path, upTo: $0) } ?? SpindleDatabase(path: path)
        let versions = try upgraded.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT f.path, a.analyzer_versions FROM analysis a JOIN files f ON f.id = a.file_id ORDER BY f.id")
                .map { "\($0[0] as String) \($0[1] as String)" }
        }
        return (upgraded, versions)
    }

    /// Genres built before v23 belong to the library of their members, the genre tables keep their rows, and
    /// two libraries may then each hold a genre of one name.
    func testGenresBelongToTheirLibraryAfterTheUpgrade() throws {
        let files = [("a.flac", "flac", 2), ("b.flac", "flac", 2)]
        let (upgraded, _) = try upgrade(dir + "/genres.db", files, from: "v22-flac-without-length-is-whole") { db in
            try db.execute(sql: """
                INSERT INTO composite_genres (id, name, kind, confidence, size, description, built_at)
                VALUES (7, 'Korean Pop', 'rule', 1, 2, 'language Korean', ?), (8, 'Empty', 'rule', 1, 0, '', ?)
                """, arguments: [Date(), Date()])
            try db.execute(sql: "INSERT INTO genre_memberships (genre_id, file_id, score, explanation) VALUES (7, 1, 1, 'x'), (7, 2, 1, 'y')")
        }
        try upgraded.writer.write { db in
            let genres = try Row.fetchAll(db, sql: "SELECT id, name, root_id FROM composite_genres ORDER BY id")
                .map { "\($0[0] as Int64) \($0[1] as String) \(($0[2] as Int64?).map(String.init) ?? "none")" }
            XCTAssertEqual(genres, ["7 Korean Pop 1", "8 Empty none"])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM genre_memberships WHERE genre_id = 7"), 2)
            XCTAssertEqual(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count, 0)
            try db.execute(sql: "INSERT INTO library_roots (id, path, added_at) VALUES (2, '/srv/other', ?)", arguments: [Date()])
            try db.execute(sql: """
                INSERT INTO composite_genres (name, kind, confidence, size, description, built_at, root_id)
                VALUES ('Korean Pop', 'rule', 1, 0, '', ?, 2)
                """, arguments: [Date()])
            XCTAssertThrowsError(try db.execute(sql: """
                INSERT INTO composite_genres (name, kind, confidence, size, description, built_at, root_id)
                VALUES ('Korean Pop', 'rule', 1, 0, '', ?, 2)
                """, arguments: [Date()]), "a name is unique within its library")
        }
    }

    func testMigrationNamesAreAppendOnly() {
        // Renaming or reordering a shipped migration would re-run it on users' databases.
        XCTAssertEqual(Array(SpindleDatabase.migrationNames.prefix(6)), ["v1-file-index", "v2-analysis", "v3-runtime", "v4-paths", "v5-genres", "v6-tags"])
    }

    func testSmartDJViewUsesTheCompanionsNaming() throws {
        let db = try SpindleDatabase(path: dir + "/v.db")
        try db.writer.write { db in
            var root = LibraryRootRecord(path: "/music")
            try root.insert(db)
            var file = FileRecord(rootId: root.id!, path: "x.flac", size: 1, mtimeNs: 1, inode: 1, contentKey: "k")
            try file.insert(db)
            var a = AnalysisRecord(fileId: file.id!, contentKey: "k", analyzerVersion: 1, status: .ok)
            a.bpm = 120
            a.leadSilenceEndS = 0.5
            a.trailSilenceStartS = 180.25
            a.lufsIntegrated = -9.5
            try a.insert(db)
        }
        try db.writer.read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT * FROM smart_dj_profiles"))
            XCTAssertEqual(row["relative_path"], "x.flac")
            XCTAssertEqual(row["silence_start"], 180.25)   // where trailing silence begins
            XCTAssertEqual(row["silence_end"], 0.5)        // where leading silence ends
            XCTAssertEqual(row["lufs"], -9.5)
            XCTAssertEqual(row["bpm"], 120.0)
            XCTAssertEqual(row["library"], "/music")
        }
        // Another recording laid over the file: its old analysis is no profile of it until analysed again.
        try db.writer.write { try $0.execute(sql: "UPDATE files SET content_key = 'other'") }
        XCTAssertNil(try db.writer.read { try Row.fetchOne($0, sql: "SELECT * FROM smart_dj_profiles") })
    }

    func testDefaultPathFollowsXDG() {
        XCTAssertEqual(SpindleDatabase.defaultPath(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]), "/x/spindle/spindle.db")
        XCTAssertEqual(SpindleDatabase.defaultPath(environment: ["HOME": "/h"]), "/h/.local/share/spindle/spindle.db")
    }
}
