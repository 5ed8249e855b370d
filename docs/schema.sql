-- Spindle's database schema, as the migrations in Sources/Store/Migrations/ make it (checked by
-- MigrationTests.testTheSchemaIsDocsSchemaSQL). Read it; never run it: databases are made by their migrations.

CREATE TABLE "analysis" ("file_id" INTEGER PRIMARY KEY REFERENCES "files"("id") ON DELETE CASCADE, "content_key" TEXT, "analyzer_version" INTEGER NOT NULL, "analyzed_at" DATETIME NOT NULL, "status" TEXT NOT NULL, "error" TEXT, "damage" TEXT, "codec" TEXT, "duration_s" DOUBLE, "sample_rate" INTEGER, "channels" INTEGER, "bpm" DOUBLE, "bpm_confidence" DOUBLE, "first_beat_s" DOUBLE, "lufs_integrated" DOUBLE, "loudness_range_lu" DOUBLE, "true_peak_dbtp" DOUBLE, "sample_peak_dbfs" DOUBLE, "replaygain_track_gain_db" DOUBLE, "lead_silence_end_s" DOUBLE, "trail_silence_start_s" DOUBLE, "is_silent" BOOLEAN, "frames_fps" DOUBLE, "frames_bands" INTEGER, "frames_count" INTEGER, "seconds" DOUBLE, "crashes" INTEGER NOT NULL DEFAULT 0, "spectrum_low" DOUBLE, "spectrum_mid" DOUBLE, "spectrum_high" DOUBLE, "loudness_blocks" BLOB, "analyzer_versions" TEXT, "key" TEXT, "key_strength" DOUBLE, "features" BLOB, "bpm_alternative" DOUBLE, unread_at DATETIME, "tag_probabilities" BLOB, "embedding" BLOB);

CREATE TABLE "composite_genres" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL, "kind" TEXT NOT NULL, "confidence" DOUBLE NOT NULL, "size" INTEGER NOT NULL, "description" TEXT NOT NULL, "built_at" DATETIME NOT NULL, "root_id" INTEGER REFERENCES "library_roots"("id") ON DELETE CASCADE, UNIQUE ("root_id", "name"));

CREATE TABLE "database_info" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);

CREATE TABLE "feature_dimensions" ("version" INTEGER NOT NULL, "position" INTEGER NOT NULL, "name" TEXT NOT NULL, PRIMARY KEY ("version", "position"));

CREATE VIRTUAL TABLE file_words USING fts5(words, tokenize = "unicode61 remove_diacritics 2");

CREATE TABLE 'file_words_config'(k PRIMARY KEY, v) WITHOUT ROWID;

CREATE TABLE 'file_words_content'(id INTEGER PRIMARY KEY, c0);

CREATE TABLE 'file_words_data'(id INTEGER PRIMARY KEY, block BLOB);

CREATE TABLE 'file_words_docsize'(id INTEGER PRIMARY KEY, sz BLOB);

CREATE TABLE 'file_words_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;

CREATE TABLE "files" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "root_id" INTEGER NOT NULL REFERENCES "library_roots"("id") ON DELETE CASCADE, "path" TEXT NOT NULL, "name" TEXT NOT NULL, "size" INTEGER NOT NULL, "mtime_ns" INTEGER NOT NULL, "inode" INTEGER, "content_key" TEXT, "status" TEXT NOT NULL DEFAULT 'present', "first_seen_at" DATETIME NOT NULL, "changed_at" DATETIME NOT NULL, "missing_since" DATETIME, "audio_key" TEXT, ctime_ns INTEGER, UNIQUE ("root_id", "path"));

CREATE TABLE "genre_memberships" ("genre_id" INTEGER NOT NULL REFERENCES "composite_genres"("id") ON DELETE CASCADE, "file_id" INTEGER NOT NULL REFERENCES "files"("id") ON DELETE CASCADE, "score" DOUBLE NOT NULL, "explanation" TEXT NOT NULL, PRIMARY KEY ("genre_id", "file_id"));

CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);

CREATE TABLE "jellyfin_tracks" ("jellyfin_id" TEXT PRIMARY KEY NOT NULL, "file_id" INTEGER REFERENCES "files"("id") ON DELETE SET NULL, "jellyfin_path" TEXT NOT NULL, "strategy" INTEGER, "tried" TEXT, "imported_at" DATETIME NOT NULL);

CREATE TABLE "library_roots" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "path" TEXT NOT NULL UNIQUE, "added_at" DATETIME NOT NULL, "last_scan_at" DATETIME, "top_level" TEXT, "shard" TEXT, mount_points TEXT);

CREATE TABLE "media_server_artists" ("server" TEXT NOT NULL CHECK ("server" IN ('navidrome', 'jellyfin')), "track_id" TEXT NOT NULL, "artist_id" TEXT NOT NULL, "artist_name" TEXT NOT NULL, PRIMARY KEY ("server", "track_id", "artist_id"));

CREATE TABLE "navidrome_tracks" ("navidrome_id" TEXT PRIMARY KEY NOT NULL, "file_id" INTEGER REFERENCES "files"("id") ON DELETE SET NULL, "navidrome_path" TEXT NOT NULL, "strategy" INTEGER, "tried" TEXT, "imported_at" DATETIME NOT NULL);

CREATE TABLE "playlists" ("file" TEXT PRIMARY KEY NOT NULL, "genre" TEXT NOT NULL, "digest" TEXT NOT NULL, "tracks" INTEGER NOT NULL, "written_at" DATETIME NOT NULL);

CREATE TABLE "run_files" ("run_id" INTEGER NOT NULL REFERENCES "runs"("id") ON DELETE CASCADE, "file_id" INTEGER NOT NULL REFERENCES "files"("id") ON DELETE CASCADE, "stage" TEXT NOT NULL, "status" TEXT NOT NULL, "error" TEXT, "attempts" INTEGER NOT NULL DEFAULT 0, "updated_at" DATETIME NOT NULL, PRIMARY KEY ("run_id", "file_id", "stage"));

CREATE TABLE "runs" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "kind" TEXT NOT NULL, "status" TEXT NOT NULL, "pid" INTEGER, "started_at" DATETIME NOT NULL, "finished_at" DATETIME, "files_total" INTEGER NOT NULL DEFAULT 0, "files_done" INTEGER NOT NULL DEFAULT 0, "files_failed" INTEGER NOT NULL DEFAULT 0, "files_skipped" INTEGER NOT NULL DEFAULT 0, "options" TEXT, "summary" TEXT, "origin" TEXT);

CREATE TABLE "scan_issues" ("root_id" INTEGER NOT NULL REFERENCES "library_roots"("id") ON DELETE CASCADE, "path" TEXT NOT NULL, "reason" TEXT NOT NULL, "seen_at" DATETIME NOT NULL, PRIMARY KEY ("root_id", "path"));

CREATE TABLE "tag_batches" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "created_at" DATETIME NOT NULL, "command" TEXT NOT NULL, "status" TEXT NOT NULL, "undone_at" DATETIME);

CREATE TABLE "tag_edits" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "batch_id" INTEGER NOT NULL REFERENCES "tag_batches"("id") ON DELETE CASCADE, "file_id" INTEGER REFERENCES "files"("id") ON DELETE SET NULL, "path" TEXT NOT NULL, "key" TEXT NOT NULL, "old_values" TEXT, "new_values" TEXT, "status" TEXT NOT NULL, "error" TEXT, "size_after" INTEGER, "mtime_after_ns" INTEGER, "content_key_after" TEXT);

CREATE TABLE "tracks" ("file_id" INTEGER PRIMARY KEY REFERENCES "files"("id") ON DELETE CASCADE, "content_key" TEXT, "title" TEXT, "artist" TEXT, "album_artist" TEXT, "album" TEXT, "genres" TEXT, "date" TEXT, "year" INTEGER, "track_number" INTEGER, "track_total" INTEGER, "disc_number" INTEGER, "disc_total" INTEGER, "language" TEXT, "release_country" TEXT, "bpm" DOUBLE, "replaygain_track_gain" TEXT, "replaygain_track_peak" TEXT, "replaygain_album_gain" TEXT, "replaygain_album_peak" TEXT, "musicbrainz_track_id" TEXT, "musicbrainz_album_id" TEXT, "musicbrainz_artist_id" TEXT, "musicbrainz_album_artist_id" TEXT, "musicbrainz_release_group_id" TEXT, "duration_s" DOUBLE, "codec" TEXT, "sample_rate" INTEGER, "channels" INTEGER, "bit_depth" INTEGER, "bitrate_kbps" INTEGER, "properties" TEXT, "read_at" DATETIME NOT NULL, "error" TEXT, "crashes" INTEGER NOT NULL DEFAULT 0, unread_at DATETIME);

CREATE TABLE "vis_frames" ("file_id" INTEGER PRIMARY KEY REFERENCES "files"("id") ON DELETE CASCADE, "fps" DOUBLE NOT NULL, "bands" INTEGER NOT NULL, "count" INTEGER NOT NULL, "data" BLOB NOT NULL);

CREATE INDEX "files_on_content_key" ON "files"("content_key");

CREATE INDEX "files_on_name" ON "files"("name");

CREATE INDEX "files_on_root_id" ON "files"("root_id");

CREATE INDEX "genre_memberships_on_file" ON "genre_memberships"("file_id");

CREATE INDEX "jellyfin_tracks_on_file" ON "jellyfin_tracks"("file_id");

CREATE INDEX "media_server_artists_by_artist" ON "media_server_artists"("server", "artist_id");

CREATE INDEX "navidrome_tracks_on_file" ON "navidrome_tracks"("file_id");

CREATE INDEX "run_files_on_file" ON "run_files"("file_id", "stage");

CREATE INDEX "tag_edits_on_batch_id" ON "tag_edits"("batch_id");

CREATE INDEX "tag_edits_on_file" ON "tag_edits"("file_id");

CREATE INDEX "tag_edits_on_path" ON "tag_edits"("path");

CREATE VIEW smart_dj_profiles AS
SELECT f.path AS relative_path, a.bpm AS bpm,
       a.trail_silence_start_s AS silence_start, a.lead_silence_end_s AS silence_end,
       a.lufs_integrated AS lufs, r.path AS library
FROM analysis a JOIN files f ON f.id = a.file_id JOIN library_roots r ON r.id = f.root_id
WHERE a.status = 'ok' AND f.status = 'present' AND a.content_key IS f.content_key;

CREATE TRIGGER files_words_delete AFTER DELETE ON files BEGIN
    DELETE FROM file_words WHERE rowid = old.id;
END;

CREATE TRIGGER files_words_insert AFTER INSERT ON files BEGIN
    INSERT INTO file_words(rowid, words) VALUES (new.id, spindle_path_words(new.path));
END;

CREATE TRIGGER files_words_update AFTER UPDATE OF path ON files BEGIN
    DELETE FROM file_words WHERE rowid = old.id;
    INSERT INTO file_words(rowid, words) VALUES (new.id, spindle_path_words(new.path));
END;
