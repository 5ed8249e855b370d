import Foundation
import GRDB
import Store

/// The rows a scan did not see: moved when a new path carries the same content, or else the same audio (moved
/// and retagged, as beets does), otherwise missing. Then the pass is written.
extension ScanPass {
    func matchMoves() {
        let rows = vanishedRows()
        var byKey = rows.byKey, byAudio = rows.byAudio
        var unmatched: [FileRecord] = []
        for insert in inserts {
            if let record = take(insert.contentKey, from: &byKey) {
                move(record, to: withAudioKey(insert, sameContentAs: record), changed: false)
                // A rename keeps the time: another one means the file was written too (see `changed`).
                if insert.mtimeNs != record.mtimeNs { readAgain.append(record.id!) }
            } else {
                unmatched.append(withAudioKey(insert))
            }
        }
        for insert in unmatched {
            if let record = take(insert.audioKey, from: &byAudio), let old = record.contentKey, let new = insert.contentKey {
                move(record, to: insert, changed: true)
                carried.append((record.id!, old, new))
                report.retagged += 1
            } else {
                remainingInserts.append(insert)
            }
        }
        for var record in rows.all where !movedIds.contains(record.id!) && record.status == .present {
            record.status = .missing
            record.missingSince = now
            record.changedAt = now
            updates.append(record)
            report.missing += 1
        }
    }

    /// The rows the walk did not see, by content key and by audio key.
    private func vanishedRows() -> (byKey: [String: [FileRecord]], byAudio: [String: [FileRecord]], all: [FileRecord]) {
        var byKey: [String: [FileRecord]] = [:], byAudio: [String: [FileRecord]] = [:], vanished: [FileRecord] = []
        // A folder that could not be opened (permissions, a stale network handle, an I/O error) hides its files
        // from the walk, not from the disk: as with a root that is not mounted, absence of sight is not a
        // deletion, and marking them missing would take them out of every genre and playlist until it heals.
        let unseen = report.skipped.filter(\.unreadable).map(\.relativePath)
        func isUnseen(_ path: String) -> Bool {
            unseen.contains { $0.isEmpty || path == $0 || path.hasPrefix($0 + "/") }
        }
        for record in known where !seenPaths.contains(record.path) {
            if !unseen.isEmpty, isUnseen(record.path) {
                if record.status == .present { report.unreadable += 1 }
                continue
            }
            if let key = record.contentKey { byKey[key, default: []].append(record) }
            if let key = record.audioKey { byAudio[key, default: []].append(record) }
            vanished.append(record)
        }
        return (byKey, byAudio, vanished)
    }

    private func take(_ key: String?, from index: inout [String: [FileRecord]]) -> FileRecord? {
        guard let key, var candidates = index[key] else { return nil }
        candidates.removeAll { movedIds.contains($0.id!) }
        guard !candidates.isEmpty else { return nil }
        let record = candidates.removeFirst()
        index[key] = candidates
        return record
    }

    private func move(_ old: FileRecord, to insert: FileRecord, changed: Bool) {
        var record = old
        if changed { record.changedAt = now }
        record.path = insert.path
        record.name = insert.name
        record.size = insert.size
        record.mtimeNs = insert.mtimeNs
        record.ctimeNs = insert.ctimeNs
        record.inode = insert.inode
        record.contentKey = insert.contentKey
        record.audioKey = insert.audioKey ?? old.audioKey
        record.status = .present
        record.missingSince = nil
        updates.append(record)
        movedIds.insert(record.id!)
        report.moved += 1
    }

    /// A new path's audio key: the same content under the same kind of name keeps its row's, else it is read.
    private func withAudioKey(_ insert: FileRecord, sameContentAs old: FileRecord? = nil) -> FileRecord {
        var insert = insert
        let kind = { (path: String) in (path as NSString).pathExtension.lowercased() }
        if let old, old.audioKey != nil, kind(old.path) == kind(insert.path) {
            insert.audioKey = old.audioKey
        } else {
            insert.audioKey = AudioKey.compute(path: root.absolute(insert.path), size: insert.size)
        }
        return insert
    }

    /// Everything the pass found, in one transaction.
    func store() throws {
        let topLevel = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { !AudioFileTypes.isHidden($0) }.sorted()
        let (partial, forgotten) = try scanner.database.writer.write { db in
            _ = try FileQueries.applyScan(db, rootId: rootId, updates: updates, moved: movedIds, inserts: remainingInserts, at: now)
            let partial = try carried.filter { c in
                try !AnalysisQueries.carryOverRetagged(db, fileId: c.fileId, from: c.from, to: c.to)
            }.count
            try TrackQueries.readAgain(db, fileIds: readAgain)
            try AnalysisQueries.makeStale(db, fileIds: audioChangedInPlace)
            try FileQueries.describeRoot(db, rootId: rootId, topLevel: Array(topLevel.prefix(10_000)),
                                         shard: scanner.shard?.description)
            try FileQueries.recordMountPoints(db, rootId: rootId,
                                              mounted.merging(away.map { ($0, wasMounted[$0]!) }) { _, recorded in recorded })
            // After the matching above: a file that came back today was matched while its row was still there.
            let forgotten = try scanner.forgetMissingAfter.map {
                try FileQueries.forgetMissing(db, rootId: rootId, missingBefore: now.addingTimeInterval(-$0))
            } ?? 0
            return (partial, forgotten)
        }
        report.forgotten = forgotten
        report.keptMissing = scanner.forgetMissingAfter
        // Their analysis was of part of the file, which has grown since: not retagged, analysed again.
        report.retagged -= partial
        report.new = remainingInserts.count
    }
}
