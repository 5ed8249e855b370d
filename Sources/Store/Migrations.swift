import Foundation
import GRDB

/// The schema, as named, append-only migrations: a database written by an older Spindle opens and is
/// brought up to date in place. Never edit a registered migration; add a new one.
enum Migrations {
    /// Every migration in order, by its name in `grdb_migrations`: one file each in Migrations/, named for it.
    /// The schema they make is docs/schema.sql, which MigrationTests compares with a new database's.
    static let all: [(name: String, migrate: @Sendable (Database) throws -> Void)] = [
        ("v1-file-index", v1FileIndex),
        ("v2-analysis", v2Analysis),
        ("v3-runtime", v3Runtime),
        ("v4-paths", v4Paths),
        ("v5-genres", v5Genres),
        ("v6-tags", v6Tags),
        ("v7-safety", v7Safety),
        ("v8-analyzer-versions", v8AnalyzerVersions),
        ("v9-shards", v9Shards),
        ("v10-features", v10Features),
        ("v11-playlists", v11Playlists),
        ("v12-bpm-alternative", v12BpmAlternative),
        ("v13-audio-key", v13AudioKey),
        ("v14-reanalyse-wav-decoded-by-ffmpeg", v14ReanalyseWavDecodedByFfmpeg),
        ("v15-composed-names", v15ComposedNames),
        ("v16-reanalyse-ogg-vorbis-decoded-short", v16ReanalyseOggVorbisDecodedShort),
        ("v17-remeter-surround-ogg", v17RemeterSurroundOgg),
        ("v18-remeter-stated-layouts", v18RemeterStatedLayouts),
        ("v19-reread-tags-without-year-or-album-artist", v19RereadTagsWithoutYearOrAlbumArtist),
        ("v20-retempo-half-time", v20RetempoHalfTime),
        ("v21-reread-wma-and-ffmpeg-album-artists", v21RereadWmaAndFfmpegAlbumArtists),
        ("v22-flac-without-length-is-whole", v22FlacWithoutLengthIsWhole),
        ("v23-genres-per-library", v23GenresPerLibrary),
        ("v24-tag-edits-by-file", v24TagEditsByFile),
        ("v25-reanalyse-mpeg-in-wav", v25ReanalyseMpegInWav),
        ("v26-navidrome-tracks-by-file", v26NavidromeTracksByFile),
        ("v27-flac-audio-keys-with-length", v27FlacAudioKeysWithLength),
        ("v28-pcm-audio-keys-spread", v28PcmAudioKeysSpread),
        ("v29-reanalyse-flac-stopped-by-damage", v29ReanalyseFlacStoppedByDamage),
        ("v30-reanalyse-mpeg-stopped-by-junk", v30ReanalyseMpegStoppedByJunk),
        ("v31-reanalyse-files-with-junk-after-the-music", v31ReanalyseFilesWithJunkAfterTheMusic),
        ("v32-smart-dj-profiles-of-current-content", v32SmartDjProfilesOfCurrentContent),
        ("v33-file-change-times", v33FileChangeTimes),
        ("v34-mount-points-inside-roots", v34MountPointsInsideRoots),
        ("v35-retry-files-that-could-not-be-reached", v35RetryFilesThatCouldNotBeReached),
        ("v36-results-kept-through-a-read-error", v36ResultsKeptThroughAReadError),
        ("v37-media-server-artists-and-jellyfin-tracks", v37MediaServerArtistsAndJellyfinTracks),
        ("v38-tagger-results", v38TaggerResults),
    ]

    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in all { migrator.registerMigration(migration.name, migrate: migration.migrate) }
        return migrator
    }

    static func reanalyseMPEGStoppedByJunk(_ db: Database) throws {
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = '{}' WHERE codec IN ('mp1', 'mp2', 'mp3') AND damage LIKE 'decoding stopped:%'
            """)
    }
}
