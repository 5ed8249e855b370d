import Foundation
import GRDB
import Library
import Store
import Tagging

/// Stage 2: read the tags of files whose `tracks` row is missing or older than their content, in worker
/// processes (a TagLib crash costs one file); with `force`, of every file asked for. A tag edited in place by a tool that
/// keeps the file's time (Picard's "preserve timestamps", Mp3tag's "preserve file modification time") leaves
/// size and time as they were when padding takes the edit: no scan sees it, and `--force` is how to read it.
public enum TagStage {
    public struct Report: Sendable {
        public var read = 0
        public var failed = 0
    }

    /// `paths`: the files a forced run was asked for (every file when nil); stale files are read whatever they are.
    static func run(_ context: RunContext, only paths: [String]? = nil) throws -> Report {
        let targets = try context.database.writer.read { db in
            guard context.force else { return try TrackQueries.filesToRead(db, rootId: context.rootId) }
            let every = try TrackQueries.filesToRead(db, rootId: context.rootId, all: true)
            guard let paths else { return every }
            // Forced for some files: theirs, and as always the stale ones.
            let wanted = Set(paths)
            let stale = Set(try TrackQueries.filesToRead(db, rootId: context.rootId).map(\.fileId))
            return every.filter { wanted.contains($0.path) || stale.contains($0.fileId) }
        }
        var report = Report()
        guard !targets.isEmpty else { return report }
        try context.journal.plan(fileIds: targets.map(\.fileId))
        let jobs = targets.enumerated().map { i, file in
            PoolJob(job: WorkerJob(id: i, kind: .tags, path: context.root.absolute(file.path)), relativePath: file.path,
                    fileId: file.fileId, contentKey: file.contentKey, timeout: context.settings.runtime.timeoutBase)
        }
        let progress = ProgressReporter(label: "tags", total: jobs.count, verbosity: context.verbosity)
        var batch: [TrackRecord] = []
        var unread: [(fileId: Int64, contentKey: String?)] = []
        func flush() throws {
            let rows = batch, marks = unread
            batch.removeAll()
            unread.removeAll()
            try context.journal.flush { db in
                try TrackQueries.save(db, rows)
                for file in marks { try TrackQueries.markUnread(db, fileId: file.fileId, contentKey: file.contentKey) }
            }
        }
        // What was read is stored even when the pool stops early (no worker could start).
        let processed = Result { try context.pool().process(jobs) { result in
            let relative = result.job.relativePath
            if let snapshot = result.reply?.tags {
                batch.append(TrackRecord(fileId: result.job.fileId, contentKey: result.job.contentKey, snapshot: snapshot))
                report.read += 1
                context.journal.record(fileId: result.job.fileId, stage: "tags", status: .done)
                progress.advance()
            } else {
                let reason = result.reply?.tagError ?? result.failure ?? "unknown error"
                // A row would be current and take the tags it had: left as it is, read again by the next run.
                if result.reply?.tagsUnreachable == true {
                    unread.append((result.job.fileId, result.job.contentKey))
                } else {
                    batch.append(try TrackRecord.failed(fileId: result.job.fileId, contentKey: result.job.contentKey,
                                                        reason: reason, crashed: result.reply == nil, in: context.database))
                }
                report.failed += 1
                context.journal.record(fileId: result.job.fileId, stage: "tags", status: .failed, error: reason)
                progress.advance(failed: true, note: "\(relative): \(reason)")
            }
            if batch.count + unread.count >= 200 || context.journal.isDue { try flush() }
        } }
        try flush()
        try processed.get()
        progress.finish()
        return report
    }
}

extension TrackRecord {
    /// The row for a file whose tags could not be read: current (not retried) for a reading error; after
    /// a worker crash, retried once, then left alone until the file changes.
    static func failed(fileId: Int64, contentKey: String?, reason: String, crashed: Bool,
                       in database: SpindleDatabase) throws -> TrackRecord {
        let previous = try database.writer.read { try TrackQueries.track($0, fileId: fileId) }
        var record = TrackRecord(fileId: fileId)
        record.error = reason
        record.crashes = crashed ? (previous?.crashes ?? 0) + 1 : 0
        record.contentKey = !crashed || record.crashes >= 2 ? contentKey : nil
        return record
    }

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
