import Foundation
import GRDB

/// The schema, as named, append-only migrations: a database written by an older Spindle opens and is
/// brought up to date in place. Never edit a registered migration; add a new one.
enum Migrations {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-file-index") { db in
            try db.create(table: "library_roots") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("path", .text).notNull().unique()
                t.column("added_at", .datetime).notNull()
                t.column("last_scan_at", .datetime)
            }
            try db.create(table: "files") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("root_id", .integer).notNull().indexed().references("library_roots", onDelete: .cascade)
                t.column("path", .text).notNull()            // relative to the root, '/' separators
                t.column("name", .text).notNull()            // lower-cased file name, for name lookups
                t.column("size", .integer).notNull()
                t.column("mtime_ns", .integer).notNull()
                t.column("inode", .integer)
                t.column("content_key", .text)
                t.column("status", .text).notNull().defaults(to: "present")
                t.column("first_seen_at", .datetime).notNull()
                t.column("changed_at", .datetime).notNull()
                t.column("missing_since", .datetime)
                t.uniqueKey(["root_id", "path"])
            }
            try db.create(index: "files_on_name", on: "files", columns: ["name"])
            try db.create(index: "files_on_content_key", on: "files", columns: ["content_key"])
            try db.create(table: "tracks") { t in
                t.primaryKey("file_id", .integer).references("files", onDelete: .cascade)
                t.column("content_key", .text)
                t.column("title", .text)
                t.column("artist", .text)
                t.column("album_artist", .text)
                t.column("album", .text)
                t.column("genres", .text)                    // JSON array
                t.column("date", .text)
                t.column("year", .integer)
                t.column("track_number", .integer)
                t.column("track_total", .integer)
                t.column("disc_number", .integer)
                t.column("disc_total", .integer)
                t.column("language", .text)
                t.column("release_country", .text)
                t.column("bpm", .double)
                t.column("replaygain_track_gain", .text)
                t.column("replaygain_track_peak", .text)
                t.column("replaygain_album_gain", .text)
                t.column("replaygain_album_peak", .text)
                t.column("musicbrainz_track_id", .text)
                t.column("musicbrainz_album_id", .text)
                t.column("musicbrainz_artist_id", .text)
                t.column("musicbrainz_album_artist_id", .text)
                t.column("musicbrainz_release_group_id", .text)
                t.column("duration_s", .double)
                t.column("codec", .text)
                t.column("sample_rate", .integer)
                t.column("channels", .integer)
                t.column("bit_depth", .integer)
                t.column("bitrate_kbps", .integer)
                t.column("properties", .text)                // every tag property, JSON object of arrays
                t.column("read_at", .datetime).notNull()
            }
            try db.create(table: "runs") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("kind", .text).notNull()
                t.column("status", .text).notNull()          // running | completed | failed | interrupted
                t.column("pid", .integer)
                t.column("started_at", .datetime).notNull()
                t.column("finished_at", .datetime)
                t.column("files_total", .integer).notNull().defaults(to: 0)
                t.column("files_done", .integer).notNull().defaults(to: 0)
                t.column("files_failed", .integer).notNull().defaults(to: 0)
                t.column("files_skipped", .integer).notNull().defaults(to: 0)
                t.column("options", .text)
                t.column("summary", .text)
            }
            try db.create(table: "run_files") { t in
                t.column("run_id", .integer).notNull().references("runs", onDelete: .cascade)
                t.column("file_id", .integer).notNull().references("files", onDelete: .cascade)
                t.column("stage", .text).notNull()
                t.column("status", .text).notNull()          // pending | done | failed | skipped
                t.column("error", .text)
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("updated_at", .datetime).notNull()
                t.primaryKey(["run_id", "file_id", "stage"])
            }
            try db.create(index: "run_files_on_file", on: "run_files", columns: ["file_id", "stage"])
        }
        migrator.registerMigration("v2-analysis") { db in
            try db.create(table: "analysis") { t in
                t.primaryKey("file_id", .integer).references("files", onDelete: .cascade)
                t.column("content_key", .text)
                t.column("analyzer_version", .integer).notNull()
                t.column("analyzed_at", .datetime).notNull()
                t.column("status", .text).notNull()          // ok | error
                t.column("error", .text)
                t.column("damage", .text)                    // set when only part of the file decoded
                t.column("codec", .text)
                t.column("duration_s", .double)
                t.column("sample_rate", .integer)
                t.column("channels", .integer)
                t.column("bpm", .double)
                t.column("bpm_confidence", .double)
                t.column("first_beat_s", .double)
                t.column("lufs_integrated", .double)
                t.column("loudness_range_lu", .double)
                t.column("true_peak_dbtp", .double)
                t.column("sample_peak_dbfs", .double)
                t.column("replaygain_track_gain_db", .double)
                t.column("lead_silence_end_s", .double)
                t.column("trail_silence_start_s", .double)
                t.column("is_silent", .boolean)
                t.column("frames_fps", .double)
                t.column("frames_bands", .integer)
                t.column("frames_count", .integer)
                t.column("seconds", .double)
            }
            try db.create(table: "vis_frames") { t in
                t.primaryKey("file_id", .integer).references("files", onDelete: .cascade)
                t.column("fps", .double).notNull()
                t.column("bands", .integer).notNull()
                t.column("count", .integer).notNull()
                t.column("data", .blob).notNull()
            }
            // The Navidrome companion's names: silence_start is where TRAILING silence begins,
            // silence_end where LEADING silence ends.
            try db.execute(sql: """
                CREATE VIEW smart_dj_profiles AS
                SELECT f.path AS relative_path, a.bpm AS bpm,
                       a.trail_silence_start_s AS silence_start, a.lead_silence_end_s AS silence_end,
                       a.lufs_integrated AS lufs
                FROM analysis a JOIN files f ON f.id = a.file_id
                WHERE a.status = 'ok' AND f.status = 'present'
                """)
        }
        migrator.registerMigration("v3-runtime") { db in
            // Worker crashes per file: a file that crashed a worker twice is not retried until it changes.
            try db.alter(table: "analysis") { t in
                t.add(column: "crashes", .integer).notNull().defaults(to: 0)
            }
            // Tags that could not be read keep a row with the reason, so they are not re-read every night.
            try db.alter(table: "tracks") { t in
                t.add(column: "error", .text)
                t.add(column: "crashes", .integer).notNull().defaults(to: 0)
            }
            // Entries the walk could not index (names that are not UTF-8, FIFOs, escaping symlinks, ...).
            try db.create(table: "scan_issues") { t in
                t.column("root_id", .integer).notNull().references("library_roots", onDelete: .cascade)
                t.column("path", .text).notNull()
                t.column("reason", .text).notNull()
                t.column("seen_at", .datetime).notNull()
                t.primaryKey(["root_id", "path"])
            }
        }
        migrator.registerMigration("v4-paths") { db in
            // Words of every indexed path, for the resolver's fuzzy strategy. The unicode61 tokenizer folds
            // case and accents and splits on punctuation, so "Beyoncé/01_Halo.flac" indexes as beyonce 01 halo flac.
            try db.execute(sql: """
                CREATE VIRTUAL TABLE file_words USING fts5(words, tokenize = "unicode61 remove_diacritics 2");
                INSERT INTO file_words(rowid, words) SELECT id, path FROM files;
                CREATE TRIGGER files_words_insert AFTER INSERT ON files BEGIN
                    INSERT INTO file_words(rowid, words) VALUES (new.id, new.path);
                END;
                CREATE TRIGGER files_words_update AFTER UPDATE OF path ON files BEGIN
                    DELETE FROM file_words WHERE rowid = old.id;
                    INSERT INTO file_words(rowid, words) VALUES (new.id, new.path);
                END;
                CREATE TRIGGER files_words_delete AFTER DELETE ON files BEGIN
                    DELETE FROM file_words WHERE rowid = old.id;
                END;
                """)
            // Navidrome's track ids mapped to library files (null file_id: unresolved).
            try db.create(table: "navidrome_tracks") { t in
                t.primaryKey("navidrome_id", .text)
                t.column("file_id", .integer).references("files", onDelete: .setNull)
                t.column("navidrome_path", .text).notNull()
                t.column("strategy", .integer)
                t.column("tried", .text)
                t.column("imported_at", .datetime).notNull()
            }
        }
        migrator.registerMigration("v5-genres") { db in
            try db.create(table: "composite_genres") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
                t.column("kind", .text).notNull()               // rule | cluster
                t.column("confidence", .double).notNull()
                t.column("size", .integer).notNull()
                t.column("description", .text).notNull()
                t.column("built_at", .datetime).notNull()
            }
            try db.create(table: "genre_memberships") { t in
                t.column("genre_id", .integer).notNull().references("composite_genres", onDelete: .cascade)
                t.column("file_id", .integer).notNull().references("files", onDelete: .cascade)
                t.column("score", .double).notNull()
                t.column("explanation", .text).notNull()
                t.primaryKey(["genre_id", "file_id"])
            }
            try db.create(index: "genre_memberships_on_file", on: "genre_memberships", columns: ["file_id"])
            // A coarse spectral profile per track (mean visualiser level of the low, mid and high bands),
            // kept beside the frames so genre building need not read them.
            try db.alter(table: "analysis") { t in
                t.add(column: "spectrum_low", .double)
                t.add(column: "spectrum_mid", .double)
                t.add(column: "spectrum_high", .double)
            }
        }
        migrator.registerMigration("v6-tags") { db in
            try db.alter(table: "analysis") { t in
                t.add(column: "loudness_blocks", .blob)   // gating-block histogram, for album loudness
            }
            try db.create(table: "tag_batches") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("created_at", .datetime).notNull()
                t.column("command", .text).notNull()
                t.column("status", .text).notNull()        // applying | applied | partial | undone
                t.column("undone_at", .datetime)
            }
            // One row per file and key: the old values are journaled before the file is written.
            try db.create(table: "tag_edits") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("batch_id", .integer).notNull().indexed().references("tag_batches", onDelete: .cascade)
                t.column("file_id", .integer).references("files", onDelete: .setNull)
                t.column("path", .text).notNull()
                t.column("key", .text).notNull()
                t.column("old_values", .text)              // JSON array; NULL: the key was absent
                t.column("new_values", .text)              // JSON array; NULL: the key is removed
                t.column("status", .text).notNull()        // pending | applied | failed | undone | conflict
                t.column("error", .text)
                t.column("size_after", .integer)
                t.column("mtime_after_ns", .integer)
            }
        }
        migrator.registerMigration("v7-safety") { db in
            // The content key a tag write left, so undo can tell the file it wrote from a later edit.
            try db.alter(table: "tag_edits") { t in
                t.add(column: "content_key_after", .text)
            }
            // The fuzzy index holds PathWords' words (Swift's folding: ß as ss, full-width as ASCII), the
            // words a query is made of, instead of the raw path folded by SQLite's tokenizer.
            try db.execute(sql: """
                DROP TRIGGER files_words_insert;
                DROP TRIGGER files_words_update;
                DELETE FROM file_words;
                INSERT INTO file_words(rowid, words) SELECT id, spindle_path_words(path) FROM files;
                CREATE TRIGGER files_words_insert AFTER INSERT ON files BEGIN
                    INSERT INTO file_words(rowid, words) VALUES (new.id, spindle_path_words(new.path));
                END;
                CREATE TRIGGER files_words_update AFTER UPDATE OF path ON files BEGIN
                    DELETE FROM file_words WHERE rowid = old.id;
                    INSERT INTO file_words(rowid, words) VALUES (new.id, spindle_path_words(new.path));
                END;
                """)
        }
        migrator.registerMigration("v8-analyzer-versions") { db in
            // One version per analyzer, so a changed analyzer makes only its own results stale. Rows written
            // under the single version 2 hold the first version of each of the four analyzers.
            try db.alter(table: "analysis") { t in
                t.add(column: "analyzer_versions", .text)
            }
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = '{"frames":1,"loudness":1,"silence":1,"tempo":1}'
                WHERE analyzer_version = 2
                """)
        }
        migrator.registerMigration("v9-shards") { db in
            // Which database this is (merges record where copied runs came from, so merging a shard twice
            // copies nothing twice) and which library a root is: the names at its top, compared between shards
            // whose roots may be mounted at different paths on different machines.
            try db.create(table: "database_info") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
            try db.execute(sql: "INSERT INTO database_info (key, value) VALUES ('id', ?)", arguments: [UUID().uuidString])
            try db.alter(table: "library_roots") { t in
                t.add(column: "top_level", .text)      // JSON array of the root's entry names, sorted
                t.add(column: "shard", .text)          // "K/N" when this database holds one shard of the library
            }
            try db.alter(table: "runs") { t in
                t.add(column: "origin", .text)         // "<database id>#<run id>" of a run merged from a shard
            }
        }
        migrator.registerMigration("v10-features") { db in
            // The key, and the feature vector (little-endian float32s) whose dimension names are kept per
            // version of the features analyzer in feature_dimensions.
            try db.alter(table: "analysis") { t in
                t.add(column: "key", .text)
                t.add(column: "key_strength", .double)
                t.add(column: "features", .blob)
            }
            try db.create(table: "feature_dimensions") { t in
                t.column("version", .integer).notNull()
                t.column("position", .integer).notNull()
                t.column("name", .text).notNull()
                t.primaryKey(["version", "position"])
            }
        }
        migrator.registerMigration("v11-playlists") { db in
            // The playlist files Spindle wrote, so it rewrites only its own and removes only its own (and
            // only while their content is still what it wrote).
            try db.create(table: "playlists") { t in
                t.primaryKey("file", .text)           // absolute path of the .m3u8
                t.column("genre", .text).notNull()
                t.column("digest", .text).notNull()   // FNV-1a of the bytes written
                t.column("tracks", .integer).notNull()
                t.column("written_at", .datetime).notNull()
            }
        }
        migrator.registerMigration("v12-bpm-alternative") { db in
            // The tempo analyzer's runner-up metrical level, when the evidence is split between two.
            try db.alter(table: "analysis") { t in t.add(column: "bpm_alternative", .double) }
        }
        migrator.registerMigration("v13-audio-key") { db in
            // The audio's identity apart from its tags, so that a file another tagger rewrote keeps its analysis.
            try db.alter(table: "files") { t in t.add(column: "audio_key", .text) }
        }
        migrator.registerMigration("v14-reanalyse-wav-decoded-by-ffmpeg") { db in
            // Big-endian WAVs (RIFX) used to be decoded by FFmpeg, which read their samples byte-swapped: their
            // stored loudness, tempo and the rest describe noise. Every .wav analysis that FFmpeg's PCM decoders
            // made (libsndfile, which decodes the other WAVs, names its codec plain "pcm") is made stale, so the
            // next run decodes it again: the RIFX ones right, the few others (a data size never filled in) as before.
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = '{}'
                WHERE codec LIKE 'pcm\\_%' ESCAPE '\\'
                  AND file_id IN (SELECT id FROM files WHERE lower(path) LIKE '%.wav' OR lower(path) LIKE '%.wave')
                """)
        }
        migrator.registerMigration("v15-composed-names") { db in
            // File names and path words in Unicode's composed form (NFC), so that a Mac's decomposed names
            // (Hangul as jamo) are found by the composed ones players send (`FileRecord.nameKey`, `PathWords`).
            // A path already composed (every ASCII one) has the same name and words either way: only the others
            // are rewritten, so a 100,000-file library of composed names upgrades without rebuilding its index.
            let rows = try Row.fetchAll(db, sql: "SELECT id, path FROM files")
            for row in rows {
                let id: Int64 = row[0], path: String = row[1]
                guard !path.utf8.allSatisfy({ $0 < 0x80 }),
                      !path.utf8.elementsEqual(path.precomposedStringWithCanonicalMapping.utf8) else { continue }
                try db.execute(sql: "UPDATE files SET name = ? WHERE id = ?", arguments: [FileRecord.nameKey(path), id])
                try db.execute(sql: "DELETE FROM file_words WHERE rowid = ?", arguments: [id])
                try db.execute(sql: "INSERT INTO file_words(rowid, words) VALUES (?, spindle_path_words(?))", arguments: [id, path])
            }
        }
        migrator.registerMigration("v16-reanalyse-ogg-vorbis-decoded-short") { db in
            // libsndfile skipped the audio packets an encoder had put on an Ogg Vorbis file's header page, so
            // such files were analysed without their start (an LMMS crash cymbal lost its attack, 0.39 s and
            // 7 LU). They decode whole now (`OggPages`). Their analysed duration falls short of TagLib's,
            // which counts from the granule positions, by at least 1,024 samples (over 21 ms); a healthy file
            // differs by under a millisecond. Those analyses are made stale so the next run decodes them again.
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = '{}'
                WHERE codec = 'vorbis'
                  AND (SELECT t.duration_s FROM tracks t WHERE t.file_id = analysis.file_id) - duration_s > 0.015
                """)
        }
        migrator.registerMigration("v17-remeter-surround-ogg") { db in
            // libsndfile hands Vorbis and Opus surround over in the codecs' own channel order (FL FC FR, surrounds,
            // LFE), and the meter weighed it as file order: a 5.1 file's rear left went uncounted as the LFE, and
            // its LFE counted as a surround. Decoders now deliver file order (`ChannelOrder`). Only loudness
            // depends on the order (peaks, the mono mix and the rest do not), so only it is made stale, and only
            // for Vorbis and Opus of five channels or more (three channels are all weighed alike).
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = json_remove(analyzer_versions, '$.loudness')
                WHERE codec IN ('vorbis', 'opus') AND channels >= 5 AND json_valid(analyzer_versions)
                """)
        }
        migrator.registerMigration("v18-remeter-stated-layouts") { db in
            // The meter weighed channels by their count alone: a four-channel file as four fronts (a quad file's
            // rears count +1.5 dB in BS.1770), a 2.1 or 3.1 file's LFE as a front, a 4.0 file's back centre as
            // a front. Decoders now report the layout a file states (`SpeakerLayout`), and four channels
            // without one are quad, as in FLAC. Only loudness depends on it, and only with three or more channels.
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = json_remove(analyzer_versions, '$.loudness')
                WHERE channels >= 3 AND json_valid(analyzer_versions)
                """)
        }
        migrator.registerMigration("v19-reread-tags-without-year-or-album-artist") { db in
            // A date under YEAR or RELEASEDATE (Vorbis comments, APE tags) was not read, so those tracks had no
            // year and no decade; nor was foobar2000's "ALBUM ARTIST". Those tracks' tags are read again at the
            // next scan; the others keep theirs.
            try db.execute(sql: "UPDATE tracks SET content_key = NULL WHERE year IS NULL OR album_artist IS NULL")
        }
        migrator.registerMigration("v20-retempo-half-time") { db in
            // Tempo version 12 no longer halves a half-time groove (trap, dubstep: 140 had read 70). Version 11's
            // results differ only where it halved, which gave at most half the range's top (100 BPM by default):
            // those are measured again, the rest are version 12's already.
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = json_set(analyzer_versions, '$.tempo', 12)
                WHERE json_valid(analyzer_versions) AND json_extract(analyzer_versions, '$.tempo') = 11
                  AND (bpm IS NULL OR bpm > 101)
                """)
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = json_remove(analyzer_versions, '$.tempo')
                WHERE json_valid(analyzer_versions) AND json_extract(analyzer_versions, '$.tempo') = 11
                """)
        }
        migrator.registerMigration("v21-reread-wma-and-ffmpeg-album-artists") { db in
            // A WMA file's key and ReplayGain attributes were not read (TagLib 1.13 maps them to no property), nor
            // FFmpeg's "ALBUM_ARTIST" in APE tags, nor a TTA file's APE tag at all: WMA tracks and those without an
            // album artist (which every TTA track tagged that way is) are read again.
            try db.execute(sql: "UPDATE tracks SET content_key = NULL WHERE codec = 'wma' OR album_artist IS NULL")
        }
        migrator.registerMigration("v22-flac-without-length-is-whole") { db in
            // A FLAC whose STREAMINFO states no length (written to a pipe) was decoded whole but reported as
            // "truncated: decoded N of 9223372036854775807 frames" (libsndfile's "unknown"); its results are whole.
            try db.execute(sql: """
                UPDATE analysis SET damage = NULL
                WHERE codec = 'flac' AND damage LIKE 'truncated: decoded % of 9223372036854775807 frames'
                """)
        }
        migrator.registerMigration("v23-genres-per-library") { db in
            // Each library root keeps its own composite genres. With one set for the database, the nightly run of
            // a second library (two disks, one default database) replaced the first one's genres, and the first
            // library's `playlists write` then wrote the other's genres, empty, into its folder. A name is unique
            // within its library; a genre built before this keeps the root of its members.
            try db.create(table: "new_composite_genres") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("confidence", .double).notNull()
                t.column("size", .integer).notNull()
                t.column("description", .text).notNull()
                t.column("built_at", .datetime).notNull()
                t.column("root_id", .integer).references("library_roots", onDelete: .cascade)
                t.uniqueKey(["root_id", "name"])
            }
            try db.execute(sql: """
                INSERT INTO new_composite_genres (id, name, kind, confidence, size, description, built_at, root_id)
                SELECT g.id, g.name, g.kind, g.confidence, g.size, g.description, g.built_at,
                       (SELECT f.root_id FROM genre_memberships m JOIN files f ON f.id = m.file_id WHERE m.genre_id = g.id LIMIT 1)
                FROM composite_genres g
                """)
            try db.drop(table: "composite_genres")
            try db.rename(table: "new_composite_genres", to: "composite_genres")
        }
        migrator.registerMigration("v24-tag-edits-by-file") { db in
            // Undo asks, for each file, which other batches wrote it (newest first: a later batch must be undone
            // before; after an undo, the earlier batches take the file's state): by file and by path, not by a
            // scan of every edit ever journaled for each file of a batch.
            try db.create(index: "tag_edits_on_file", on: "tag_edits", columns: ["file_id"])
            try db.create(index: "tag_edits_on_path", on: "tag_edits", columns: ["path"])
        }
        migrator.registerMigration("v25-reanalyse-mpeg-in-wav") { db in
            // MPEG audio inside a WAV was decoded by libsndfile, which stops silently partway through VBR audio:
            // its duration, loudness, silences and the rest describe the first part only. FFmpeg decodes it now.
            // Every MPEG analysis of a file not named as an MPEG file is made stale (a bare MP3 named .wav is
            // decoded again for nothing, at no harm).
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = '{}'
                WHERE codec IN ('mp1', 'mp2', 'mp3')
                  AND file_id IN (SELECT id FROM files WHERE lower(path) NOT LIKE '%.mp1' AND lower(path) NOT LIKE '%.mp2'
                                                       AND lower(path) NOT LIKE '%.mp3' AND lower(path) NOT LIKE '%.mpga')
                """)
        }
        migrator.registerMigration("v26-navidrome-tracks-by-file") { db in
            // A file forgotten after going missing sets its Navidrome ids' file to null: by index, not by a scan
            // of every id imported for each file deleted.
            try db.create(index: "navidrome_tracks_on_file", on: "navidrome_tracks", columns: ["file_id"])
        }
        migrator.registerMigration("v27-flac-audio-keys-with-length") { db in
            // A FLAC's audio key now holds its frames' length, so a file cut short keeps no analysis of the whole:
            // the keys of the old form are computed again, 2,000 a scan, as for a library indexed before audio keys.
            try db.execute(sql: "UPDATE files SET audio_key = NULL WHERE audio_key LIKE 'flac:%' OR audio_key LIKE 'oggflac:%'")
        }
        migrator.registerMigration("v28-pcm-audio-keys-spread") { db in
            // A WAV's or AIFF's audio key now samples the middle of its samples too, so PCM changed in place is
            // told from a touched file: keys of the old form are computed again by the scans' backfill.
            try db.execute(sql: """
                UPDATE files SET audio_key = NULL
                WHERE lower(path) LIKE '%.wav' OR lower(path) LIKE '%.wave' OR lower(path) LIKE '%.aif'
                   OR lower(path) LIKE '%.aiff' OR lower(path) LIKE '%.aifc'
                """)
        }
        migrator.registerMigration("v29-reanalyse-flac-stopped-by-damage") { db in
            // libsndfile stopped decoding a FLAC at its first damaged frame; libFLAC, now first, decodes on. The
            // FLACs whose analysis stopped so are analysed again, whole.
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = '{}' WHERE codec = 'flac' AND damage LIKE 'decoding stopped:%'
                """)
        }
        migrator.registerMigration("v30-reanalyse-mpeg-stopped-by-junk") { db in
            // libmpg123 stopped at junk inside an MP3 stream; FFmpeg now decodes past it. The MPEG audio whose
            // analysis stopped so is analysed again, whole.
            try reanalyseMPEGStoppedByJunk(db)
        }
        migrator.registerMigration("v31-reanalyse-files-with-junk-after-the-music") { db in
            // Junk after an MP3's last frame or an Ogg file's last page (zero padding, a site's text, a broken
            // tag) made the whole file partial ("decoding stopped", "the Ogg stream's end is missing"), and
            // `tags write-analysis` left it alone; such a file is whole now.
            try reanalyseMPEGStoppedByJunk(db)
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = '{}'
                WHERE codec IN ('vorbis', 'opus') AND damage LIKE 'truncated: decoded % frames, and the Ogg stream''s end is missing'
                """)
        }
        migrator.registerMigration("v32-smart-dj-profiles-of-current-content") { db in
            // The companion's view handed out a changed file's old analysis (another recording's BPM and
            // silences, a player crossfading on them) until the file was analysed again, where the read API
            // answers 404 for it. Only rows of the content a file holds now; and the library
            // each row is of, for a database with several. (The predicate is `AnalysisQueries.ofCurrentContent`,
            // spelt out: a migration's SQL must not change with later code.)
            try db.execute(sql: """
                DROP VIEW IF EXISTS smart_dj_profiles;
                CREATE VIEW smart_dj_profiles AS
                SELECT f.path AS relative_path, a.bpm AS bpm,
                       a.trail_silence_start_s AS silence_start, a.lead_silence_end_s AS silence_end,
                       a.lufs_integrated AS lufs, r.path AS library
                FROM analysis a JOIN files f ON f.id = a.file_id JOIN library_roots r ON r.id = f.root_id
                WHERE a.status = 'ok' AND f.status = 'present' AND a.content_key IS f.content_key
                """)
        }
        migrator.registerMigration("v33-file-change-times") { db in
            // A tag edited in place with the modification time set back (Picard's, Kid3's and Mp3tag's "keep
            // timestamps") kept its size and mtime, and the scan kept the old tags. Null until a scan fills it.
            try db.execute(sql: "ALTER TABLE files ADD COLUMN ctime_ns INTEGER")
        }
        migrator.registerMigration("v34-mount-points-inside-roots") { db in
            // JSON object: each folder inside the root that is another device's mount point, with that device.
            // One found empty later on another device is a disk or share not mounted, not an album deleted file by file.
            try db.execute(sql: "ALTER TABLE library_roots ADD COLUMN mount_points TEXT")
        }
        migrator.registerMigration("v35-retry-files-that-could-not-be-reached") { db in
            // A file that could not be stat'ed or opened when its turn came (gone since the scan, a disk not
            // mounted) kept a current error row and was never read again while unchanged. Such rows go stale,
            // and the next run reads those files again; the messages are the decoder's and the tag reader's.
            try db.execute(sql: """
                UPDATE analysis SET content_key = NULL
                WHERE status = 'error' AND (error LIKE 'cannot stat (%' OR error LIKE 'cannot open for reading (%'
                                            OR error LIKE 'a folder that cannot be read (%');
                UPDATE tracks SET content_key = NULL WHERE error = 'not a readable regular file';
                """)
        }
        migrator.registerMigration("v36-results-kept-through-a-read-error") { db in
            // A forced run that could not read a file (a read error, a disk away) keeps its results and tags,
            // and had left it so: the next runs took them as current, and status listed the failure until the
            // file changed. Set, the next run reads the file again. A decode that libsndfile stopped at a read
            // error ("decoding stopped: System error : Input/output error.", a WAV, AIFF or Ogg file) was stored
            // as partial results of a whole file: those files are analysed again. (The other decoders' words for
            // it, "truncated" or "libFLAC stopped decoding", are a cut file's too, and stay.)
            try db.execute(sql: """
                ALTER TABLE analysis ADD COLUMN unread_at DATETIME;
                ALTER TABLE tracks ADD COLUMN unread_at DATETIME;
                UPDATE analysis SET analyzer_versions = '{}' WHERE damage LIKE 'decoding stopped:%Input/output error%';
                """)
        }
        return migrator
    }

    private static func reanalyseMPEGStoppedByJunk(_ db: Database) throws {
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = '{}' WHERE codec IN ('mp1', 'mp2', 'mp3') AND damage LIKE 'decoding stopped:%'
            """)
    }
}
