import Foundation
import GRDB
import Store

/// What one scan found.
public struct ScanReport: Sendable {
    public var rootId: Int64 = 0
    public var seen = 0
    public var new = 0
    public var changed = 0
    public var moved = 0
    public var missing = 0
    public var restored = 0
    public var unchanged = 0
    /// Changed or moved files whose audio is as it was (their tags were edited): they keep their analysis.
    public var retagged = 0
    /// Indexed files the walk could not look at (under a folder it could not open, or not stat-able): left
    /// as they were, not marked missing.
    public var unreadable = 0
    /// Files missing longer than the scanner keeps them, deleted from the index with their results.
    public var forgotten = 0
    /// How long the scan kept missing files (nil: for good).
    public var keptMissing: TimeInterval?
    public var skipped: [SkippedEntry] = []
    public var seconds = 0.0
}

/// Brings the file index of one root up to date. An unchanged file costs the one `lstat` of the walk;
/// only new or changed files are read (for their content and audio keys), which is also how a moved file is
/// recognised: a vanished row and a new path with the same key keep the row, and with it the analysis. A
/// changed file whose audio key is the one it had (another tagger rewrote its tags), also moved or not, keeps
/// its analysis too: only its tags are read again.
public final class LibraryScanner {
    let database: SpindleDatabase
    public let root: LibraryRoot

    /// When the run that owns this scanner started: a temporary copy older than that is abandoned.
    let runStarted: Date

    /// Only the files of this shard enter the index (`analyze --shard K/N`).
    let shard: Shard?

    /// How long a missing file keeps its row (nil: for good). Within that time, a file put back or moved back
    /// in is recognised by its content and keeps its analysis; after it, it is a new file.
    let forgetMissingAfter: TimeInterval?

    /// Scans are made by runs that hold the database lock, so no other run's tag write is in flight.
    public init(database: SpindleDatabase, root: LibraryRoot, runStarted: Date = Date(), shard: Shard? = nil,
                forgetMissingAfter: TimeInterval? = nil) {
        self.database = database
        self.root = root
        self.runStarted = runStarted
        self.shard = shard
        self.forgetMissingAfter = forgetMissingAfter
    }

    /// Files indexed before audio keys existed get theirs over the following scans, this many a scan at most
    /// (two 64 KiB reads each, a few bytes for FLAC), so the first scan after an upgrade stays short.
    static let audioKeyBackfill = 2000

    /// The folder this root was at before it moved here, when `rootId()` found it had (`RootRelocation`).
    public private(set) var relocatedFrom: String?

    /// The root's row: its own, the row of the earlier root it is the new place of, or a new one.
    public func rootId() throws -> Int64 {
        try database.writer.write { db in
            if let id = try FileQueries.rootId(db, path: root.path) { return id }
            if let earlier = try RootRelocation.previous(db, for: root) {
                try FileQueries.relocateRoot(db, id: earlier.id, from: earlier.path, to: root.path)
                relocatedFrom = earlier.path
                return earlier.id
            }
            return try FileQueries.ensureRoot(db, path: root.path)
        }
    }

    public func scan(progress: ((Int) -> Void)? = nil) throws -> ScanReport {
        let started = Date()
        var report = ScanReport()
        let rootId = try self.rootId()
        report.rootId = rootId
        let (known, wasMounted) = try database.writer.read { db in
            (try FileQueries.files(db, rootId: rootId), try FileQueries.mountPoints(db, rootId: rootId))
        }
        // Positions in `known`, not copies of the records: for 100,000 files the copies, with the dictionary
        // growing by doubling, were 75 MB of the scan's 130 MB peak.
        var byPath: [String: Int] = [:]
        byPath.reserveCapacity(known.count)
        for (index, record) in known.enumerated() { byPath[record.path] = index }

        var walked: [WalkedFile] = []
        var anyAudio = false
        var mounted: [String: UInt64] = [:]
        var audioUnder = Set<String>()
        LibraryWalker(root: root).walk(file: { file in
            anyAudio = true
            // Each folder above the file, looked up: a library of many mount points (a subvolume per artist) costs
            // its depth per file, not its number of mount points.
            if !wasMounted.isEmpty {
                var folder = Substring(file.relativePath)
                while let slash = folder.lastIndex(of: "/") {
                    folder = folder[..<slash]
                    if wasMounted[String(folder)] != nil { audioUnder.insert(String(folder)) }
                }
            }
            if let shard, !shard.contains(file.relativePath) { return }
            walked.append(file)
            if walked.count % 1000 == 0 { progress?(walked.count) }
        }, skipped: { report.skipped.append($0) }, temporary: { relative, modified in
            // A tag write killed before its rename left this copy. Remove it only when its writer is gone,
            // through the held folder, so a folder swapped for a symlink cannot aim the removal elsewhere.
            let name = (relative as NSString).lastPathComponent
            guard SpindleTemporary.isAbandoned(name: name, modified: modified, before: runStarted),
                  let file = try? ConfinedFile(root: root, relative: relative, followingLink: false) else { return }
            unlinkat(file.directory, file.name, 0)
        }, mountPoint: { mounted[$0] = $1 })
        // As with the root below, for a disk or share mounted inside it: one not mounted leaves its mount point
        // an empty folder on another device (the parent's; in a container, the host folder's a volume binds), and
        // marking its files missing would take them out of every genre and playlist, and after a while out of the
        // index with their results. A disk emptied on purpose is still its device, and its files go missing.
        let away = wasMounted.keys.sorted().filter { !audioUnder.contains($0) && isAway($0, device: wasMounted[$0]!) }
        for folder in away {
            report.skipped.append(SkippedEntry(relativePath: folder, reason: "was the mount point of another disk or share at the "
                + "last scan, and is an empty folder of another device now: not mounted? Its files are left as they were "
                + "(remove the folder if that disk is gone for good)", unreadable: true))
        }
        report.seen = walked.count
        // No audio at all under a root the index has files of is a library that is not there (a network share
        // not mounted, a disk not attached), not one whose every file was deleted: marking them all missing
        // would empty the genres and take every playlist away until the share came back. (Any audio counts,
        // another shard's too: a shard whose last file was deleted is still a mounted library.)
        let present = known.lazy.filter { $0.status == .present }.count
        if !anyAudio, present > 0 {
            // An ignore file at the root that hides everything looks the same from here: name it.
            let ignoring = IgnoreFile.names.sorted().filter { access(root.absolute($0), F_OK) == 0 }
                .map { " or its \($0) hides them all" }.joined()
            throw LibraryError.rootUnavailable(path: root.path, reason: "it holds no audio files, but the index has \(present) "
                + "from earlier scans; if it is a network share or a removable disk, mount it\(ignoring) (nothing was marked missing)")
        }

        let now = Date()
        var updates: [FileRecord] = []
        var inserts: [FileRecord] = []
        var seenPaths = Set<String>()
        // (file, content key its analysis was made for, content key now): retagged files keep their analysis.
        var carried: [(fileId: Int64, from: String, to: String)] = []
        var backfill = Self.audioKeyBackfill
        // Files whose tags must be read again though their content key is the one the tags were read for.
        var readAgain: [Int64] = []
        // Files whose audio changed though their content key did not: their analysis is not theirs any more.
        var audioChangedInPlace: [Int64] = []
        for file in walked {
            seenPaths.insert(file.relativePath)
            let absolute = root.absolute(file.relativePath)
            if let index = byPath[file.relativePath] {
                var record = known[index]
                // The change time too: a write that set the modification time back still moved it. A row from
                // before it was kept takes it now, as unchanged unless the inode changed after the row last did
                // (such an edit made before this version kept it).
                let ctimeHeld = record.ctimeNs.map { $0 == file.ctimeNs }
                    ?? (Double(file.ctimeNs) <= record.changedAt.timeIntervalSince1970 * 1e9)
                if record.size == file.size && record.mtimeNs == file.mtimeNs && ctimeHeld {
                    var update = record.ctimeNs == nil
                    record.ctimeNs = file.ctimeNs
                    if record.status == .missing {
                        record.status = .present
                        record.missingSince = nil
                        // The row's observation changed: a merge of this shard takes it over an older one.
                        record.changedAt = now
                        update = true
                        report.restored += 1
                    } else {
                        report.unchanged += 1
                    }
                    if record.contentKey == nil {
                        // Its bytes could not be read at the last scan (a read error, no permission): without a
                        // key it would never match a move, and its tags would stay those read then.
                        record.contentKey = ContentKey.compute(path: absolute, size: file.size)
                        update = update || record.contentKey != nil
                    }
                    if record.audioKey == nil, backfill > 0, AudioKey.applies(to: file.relativePath) {
                        backfill -= 1
                        record.audioKey = AudioKey.compute(path: absolute, size: file.size)
                        update = update || record.audioKey != nil
                    }
                    if update { updates.append(record) }
                    continue
                }
                let key = ContentKey.compute(path: absolute, size: file.size)
                // Read again even when the content key held (see below); one that cannot be read now keeps the stored one.
                let audioKey = AudioKey.compute(path: absolute, size: file.size) ?? (key == record.contentKey ? record.audioKey : nil)
                if key != record.contentKey {
                    record.changedAt = now
                    report.changed += 1
                    if let id = record.id, let old = record.contentKey, let key, let audioKey, audioKey == record.audioKey {
                        carried.append((id, old, key))
                        report.retagged += 1
                    }
                } else {
                    // The same key at another time: the bytes the key samples are as they were, which a tag edited
                    // in place past them also leaves (a FLAC's comments after a large picture, an ID3v2 frame after
                    // a large APIC, rewritten into the padding). Changed as far as anyone can tell without reading
                    // the tags, so they are read again; the analysis follows the audio key and stays, unless that
                    // key changed: PCM rewritten in place at its size, between silent ends (a WAV normalised).
                    // A missing file moved back in at its size and time is back, whatever the move did to its
                    // change time.
                    if record.status == .missing {
                        record.changedAt = now
                        report.restored += 1
                    } else {
                        report.changed += 1
                    }
                    if let id = record.id {
                        readAgain.append(id)
                        if let old = record.audioKey, let audioKey, old != audioKey { audioChangedInPlace.append(id) }
                    }
                }
                record.size = file.size
                record.mtimeNs = file.mtimeNs
                record.ctimeNs = file.ctimeNs
                record.inode = file.inode
                record.contentKey = key
                record.audioKey = audioKey
                record.status = .present
                record.missingSince = nil
                updates.append(record)
            } else {
                // The audio key comes when matching: a file moved as it was has its row's already.
                inserts.append(FileRecord(rootId: rootId, path: file.relativePath, size: file.size,
                                          mtimeNs: file.mtimeNs, inode: file.inode,
                                          contentKey: ContentKey.compute(path: absolute, size: file.size),
                                          firstSeenAt: now, changedAt: now, ctimeNs: file.ctimeNs))
            }
        }
        // Rows not seen: moved when a new path carries the same content, or else the same audio (moved and
        // retagged, as beets does), otherwise missing.
        var vanishedByKey: [String: [FileRecord]] = [:]
        var vanishedByAudio: [String: [FileRecord]] = [:]
        var vanished: [FileRecord] = []
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
            if let key = record.contentKey { vanishedByKey[key, default: []].append(record) }
            if let key = record.audioKey { vanishedByAudio[key, default: []].append(record) }
            vanished.append(record)
        }
        var movedIds = Set<Int64>()
        func take(_ key: String?, from index: inout [String: [FileRecord]]) -> FileRecord? {
            guard let key, var candidates = index[key] else { return nil }
            candidates.removeAll { movedIds.contains($0.id!) }
            guard !candidates.isEmpty else { return nil }
            let record = candidates.removeFirst()
            index[key] = candidates
            return record
        }
        func move(_ old: FileRecord, to insert: FileRecord, changed: Bool) {
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
        func withAudioKey(_ insert: FileRecord, sameContentAs old: FileRecord? = nil) -> FileRecord {
            var insert = insert
            let kind = { (path: String) in (path as NSString).pathExtension.lowercased() }
            if let old, old.audioKey != nil, kind(old.path) == kind(insert.path) {
                insert.audioKey = old.audioKey
            } else {
                insert.audioKey = AudioKey.compute(path: root.absolute(insert.path), size: insert.size)
            }
            return insert
        }
        var unmatched: [FileRecord] = []
        for insert in inserts {
            if let record = take(insert.contentKey, from: &vanishedByKey) {
                move(record, to: withAudioKey(insert, sameContentAs: record), changed: false)
                // A rename keeps the time: another one means the file was written too (see above).
                if insert.mtimeNs != record.mtimeNs { readAgain.append(record.id!) }
            } else {
                unmatched.append(withAudioKey(insert))
            }
        }
        var remainingInserts: [FileRecord] = []
        for insert in unmatched {
            if let record = take(insert.audioKey, from: &vanishedByAudio), let old = record.contentKey, let new = insert.contentKey {
                move(record, to: insert, changed: true)
                carried.append((record.id!, old, new))
                report.retagged += 1
            } else {
                remainingInserts.append(insert)
            }
        }
        for var record in vanished where !movedIds.contains(record.id!) && record.status == .present {
            record.status = .missing
            record.missingSince = now
            record.changedAt = now
            updates.append(record)
            report.missing += 1
        }

        let topLevel = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { !AudioFileTypes.isHidden($0) }.sorted()
        let (partial, forgotten) = try database.writer.write { db in
            _ = try FileQueries.applyScan(db, rootId: rootId, updates: updates, moved: movedIds, inserts: remainingInserts, at: now)
            let partial = try carried.filter { c in
                try !AnalysisQueries.carryOverRetagged(db, fileId: c.fileId, from: c.from, to: c.to)
            }.count
            try TrackQueries.readAgain(db, fileIds: readAgain)
            try AnalysisQueries.makeStale(db, fileIds: audioChangedInPlace)
            try FileQueries.describeRoot(db, rootId: rootId, topLevel: Array(topLevel.prefix(10_000)), shard: shard?.description)
            try FileQueries.recordMountPoints(db, rootId: rootId, mounted.merging(away.map { ($0, wasMounted[$0]!) }) { _, recorded in recorded })
            // After the matching above: a file that came back today was matched while its row was still there.
            let forgotten = try forgetMissingAfter.map {
                try FileQueries.forgetMissing(db, rootId: rootId, missingBefore: now.addingTimeInterval(-$0))
            } ?? 0
            return (partial, forgotten)
        }
        report.forgotten = forgotten
        report.keptMissing = forgetMissingAfter
        // Their analysis was of part of the file, which has grown since: not retagged, analysed again.
        report.retagged -= partial
        report.new = remainingInserts.count
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// A folder inside the root that is there, on another device than the one mounted on it at the last scan.
    /// (One that is gone was removed.)
    func isAway(_ relative: String, device: UInt64) -> Bool {
        var folder = stat()
        guard lstat(root.absolute(relative), &folder) == 0, (folder.st_mode & S_IFMT) == S_IFDIR else { return false }
        return UInt64(folder.st_dev) != device
    }
}
