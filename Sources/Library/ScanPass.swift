import Foundation
import GRDB
import Store

/// One scan's working state from the walk to the write, in the order `LibraryScanner.scan` runs its phases:
/// walk the root, refuse a root that is not there, compare what was walked with the index, match the rows not
/// seen with the new paths (moves) or mark them missing, and write it all in one transaction.
final class ScanPass {
    let scanner: LibraryScanner
    let rootId: Int64
    let now = Date()
    /// The index as it was; `byPath` holds positions in it, not copies of the records: for 100,000 files the
    /// copies, with the dictionary growing by doubling, were 75 MB of the scan's 130 MB peak.
    let known: [FileRecord]
    let byPath: [String: Int]
    /// The mount points inside the root at the last scan, with their devices.
    let wasMounted: [String: UInt64]

    var report = ScanReport()
    var walked: [WalkedFile] = []
    var anyAudio = false
    var mounted: [String: UInt64] = [:]
    /// Former mount points that still have audio under them.
    var audioUnder = Set<String>()
    /// Former mount points found empty on another device: disks not mounted tonight.
    var away: [String] = []

    var updates: [FileRecord] = []
    var inserts: [FileRecord] = []
    var seenPaths = Set<String>()
    /// (file, content key its analysis was made for, content key now): retagged files keep their analysis.
    var carried: [(fileId: Int64, from: String, to: String)] = []
    var backfill = LibraryScanner.audioKeyBackfill
    /// Files whose tags must be read again though their content key is the one the tags were read for.
    var readAgain: [Int64] = []
    /// Files whose audio changed though their content key did not: their analysis is not theirs any more.
    var audioChangedInPlace: [Int64] = []
    var movedIds = Set<Int64>()
    var remainingInserts: [FileRecord] = []

    var root: LibraryRoot { scanner.root }

    init(scanner: LibraryScanner, rootId: Int64) throws {
        self.scanner = scanner
        self.rootId = rootId
        report.rootId = rootId
        (known, wasMounted) = try scanner.database.writer.read { db in
            (try FileQueries.files(db, rootId: rootId), try FileQueries.mountPoints(db, rootId: rootId))
        }
        var byPath: [String: Int] = [:]
        byPath.reserveCapacity(known.count)
        for (index, record) in known.enumerated() { byPath[record.path] = index }
        self.byPath = byPath
    }

    func walk(progress: ((Int) -> Void)?) {
        LibraryWalker(root: root).walk(file: { file in
            self.anyAudio = true
            // Each folder above the file, looked up: a library of many mount points (a subvolume per artist) costs
            // its depth per file, not its number of mount points.
            if !self.wasMounted.isEmpty {
                var folder = Substring(file.relativePath)
                while let slash = folder.lastIndex(of: "/") {
                    folder = folder[..<slash]
                    if self.wasMounted[String(folder)] != nil { self.audioUnder.insert(String(folder)) }
                }
            }
            if let shard = self.scanner.shard, !shard.contains(file.relativePath) { return }
            self.walked.append(file)
            if self.walked.count % 1000 == 0 { progress?(self.walked.count) }
        }, skipped: { self.report.skipped.append($0) }, temporary: { relative, modified in
            // A tag write killed before its rename left this copy. Remove it only when its writer is gone,
            // through the held folder, so a folder swapped for a symlink cannot aim the removal elsewhere.
            let name = (relative as NSString).lastPathComponent
            guard SpindleTemporary.isAbandoned(name: name, modified: modified, before: self.scanner.runStarted),
                  let file = try? ConfinedFile(root: self.root, relative: relative, followingLink: false) else { return }
            unlinkat(file.directory, file.name, 0)
        }, mountPoint: { self.mounted[$0] = $1 })
        report.seen = walked.count
    }

    /// A disk or a share that is not there tonight: its files are left as they were, not marked missing.
    func checkWhatIsMounted() throws {
        // As with the root below, for a disk or share mounted inside it: one not mounted leaves its mount point
        // an empty folder on another device (the parent's; in a container, the host folder's a volume binds), and
        // marking its files missing would take them out of every genre and playlist, and after a while out of the
        // index with their results. A disk emptied on purpose is still its device, and its files go missing.
        away = wasMounted.keys.sorted().filter { !audioUnder.contains($0) && scanner.isAway($0, device: wasMounted[$0]!) }
        for folder in away {
            report.skipped.append(SkippedEntry(relativePath: folder, reason: "was the mount point of another disk or share at the "
                + "last scan, and is an empty folder of another device now: not mounted? Its files are left as they were "
                + "(remove the folder if that disk is gone for good)", unreadable: true))
        }
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
    }

    /// Each walked file against its row: unchanged, changed (its keys read again), or new.
    func compare() {
        for file in walked {
            seenPaths.insert(file.relativePath)
            let absolute = root.absolute(file.relativePath)
            guard let index = byPath[file.relativePath] else {
                // The audio key comes when matching: a file moved as it was has its row's already.
                inserts.append(FileRecord(rootId: rootId, path: file.relativePath, size: file.size,
                                          mtimeNs: file.mtimeNs, inode: file.inode,
                                          contentKey: ContentKey.compute(path: absolute, size: file.size),
                                          firstSeenAt: now, changedAt: now, ctimeNs: file.ctimeNs))
                continue
            }
            let record = known[index]
            // The change time too: a write that set the modification time back still moved it. A row from
            // before it was kept takes it now, as unchanged unless the inode changed after the row last did
            // (such an edit made before this version kept it).
            let ctimeHeld = record.ctimeNs.map { $0 == file.ctimeNs }
                ?? (Double(file.ctimeNs) <= record.changedAt.timeIntervalSince1970 * 1e9)
            if record.size == file.size && record.mtimeNs == file.mtimeNs && ctimeHeld {
                unchanged(record, file, absolute: absolute)
            } else {
                changed(record, file, absolute: absolute)
            }
        }
    }

    private func unchanged(_ old: FileRecord, _ file: WalkedFile, absolute: String) {
        var record = old
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
    }

    private func changed(_ old: FileRecord, _ file: WalkedFile, absolute: String) {
        var record = old
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
    }
}
