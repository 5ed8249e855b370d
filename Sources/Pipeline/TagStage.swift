import Foundation
import GRDB
import Library
import Store
import Tagging

/// Stage 2: read the tags of files whose `tracks` row is missing or older than their content.
public enum TagStage {
    public struct Report: Sendable {
        public var read = 0
        public var failed = 0
    }

    struct Target: Sendable {
        let fileId: Int64
        let path: String
        let contentKey: String?
    }

    public static func run(database: SpindleDatabase, root: LibraryRoot, rootId: Int64, jobs: Int,
                           journal: RunJournal?, verbosity: Verbosity) throws -> Report {
        let targets = try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT f.id, f.path, f.content_key FROM files f LEFT JOIN tracks t ON t.file_id = f.id
                WHERE f.root_id = ? AND f.status = 'present'
                  AND (t.file_id IS NULL OR t.content_key IS NOT f.content_key)
                ORDER BY f.path
                """, arguments: [rootId]).map { Target(fileId: $0[0], path: $0[1], contentKey: $0[2]) }
        }
        var report = Report()
        guard !targets.isEmpty else { return report }
        try journal?.addToTotal(targets.count)
        let progress = ProgressReporter(label: "tags", total: targets.count, verbosity: verbosity)
        var batch: [TrackRecord] = []
        func flush() throws {
            let rows = batch
            batch.removeAll()
            try database.writer.write { db in for var row in rows { try row.upsert(db) } }
        }
        let rootPath = root.path
        try ParallelWork.run(targets, jobs: jobs, work: { target -> Result<TagSnapshot, TagError> in
            do { return .success(try TagReader.read(path: rootPath + "/" + target.path)) } catch let e as TagError {
                return .failure(e)
            } catch {
                return .failure(TagError(path: target.path, reason: "\(error)"))
            }
        }, deliver: { target, result in
            switch result {
            case .success(let snapshot):
                batch.append(TrackRecord(fileId: target.fileId, contentKey: target.contentKey, snapshot: snapshot))
                report.read += 1
                try journal?.record(fileId: target.fileId, stage: "tags", status: "done")
                progress.advance()
            case .failure(let error):
                report.failed += 1
                try journal?.record(fileId: target.fileId, stage: "tags", status: "failed", error: error.reason)
                progress.advance(failed: true, note: "\(target.path): \(error.reason)")
            }
            if batch.count >= 200 { try flush() }
        })
        try flush()
        progress.finish()
        return report
    }
}

extension TrackRecord {
    init(fileId: Int64, contentKey: String?, snapshot: TagSnapshot) {
        self.init(fileId: fileId)
        let tags = TrackTags(snapshot)
        self.contentKey = contentKey
        title = tags.title
        artist = tags.artist
        albumArtist = tags.albumArtist
        album = tags.album
        genres = JSONValue.array(tags.genres.map { .string($0) }).serialized()
        date = tags.date
        year = tags.year
        trackNumber = tags.trackNumber
        trackTotal = tags.trackTotal
        discNumber = tags.discNumber
        discTotal = tags.discTotal
        language = tags.language
        releaseCountry = tags.releaseCountry
        bpm = tags.bpm
        replaygainTrackGain = tags.replayGainTrackGain
        replaygainTrackPeak = tags.replayGainTrackPeak
        replaygainAlbumGain = tags.replayGainAlbumGain
        replaygainAlbumPeak = tags.replayGainAlbumPeak
        musicbrainzTrackId = tags.musicBrainzTrackId
        musicbrainzAlbumId = tags.musicBrainzAlbumId
        musicbrainzArtistId = tags.musicBrainzArtistId
        musicbrainzAlbumArtistId = tags.musicBrainzAlbumArtistId
        musicbrainzReleaseGroupId = tags.musicBrainzReleaseGroupId
        durationS = snapshot.durationSeconds
        codec = snapshot.codec
        sampleRate = snapshot.sampleRate
        channels = snapshot.channels
        bitDepth = snapshot.bitDepth
        bitrateKbps = snapshot.bitrateKbps
        properties = JSONValue.object(snapshot.properties.keys.sorted().map { key in
            (key, JSONValue.array(snapshot.properties[key]!.map { .string($0) }))
        }).serialized()
    }
}
