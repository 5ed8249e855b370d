import AudioDecoding
import Foundation
import GRDB
import Library
import Store
import Tagging

/// One key's change in one file.
public struct KeyChange: Sendable, Equatable {
    public var key: String
    /// nil: the key was absent.
    public var old: [String]?
    /// nil: the key is removed.
    public var new: [String]?
}

/// The changes planned for one file.
public struct FilePlan: Sendable {
    public var path: String          // relative to the root
    public var fileId: Int64?
    public var changes: [KeyChange]
    /// The file as it was when planned: a file that differs at write time was changed by someone else.
    public var expected: FileState?

    var edit: TagEdit {
        var e = TagEdit()
        for c in changes {
            if let new = c.new { e.set[c.key] = new } else { e.unset.append(c.key) }
        }
        return e
    }
}

/// Batches of tag edits: planned against the files' current tags, journaled (old values first) in
/// `tag_edits`, written atomically file by file, and undoable once.
public enum TagBatch {
    /// TagLib property names Spindle writes without --allow-custom.
    public static let knownKeys: Set<String> = [
        "TITLE", "ARTIST", "ALBUMARTIST", "ALBUM", "GENRE", "DATE", "ORIGINALDATE", "TRACKNUMBER", "TRACKTOTAL",
        "DISCNUMBER", "DISCTOTAL", "BPM", "LANGUAGE", "RELEASECOUNTRY", "COMMENT", "COMPOSER", "LYRICIST", "CONDUCTOR",
        "LYRICS", "COPYRIGHT", "LABEL", "ISRC", "MOOD", "COMPILATION", "TITLESORT", "ARTISTSORT", "ALBUMSORT",
        "ALBUMARTISTSORT", "SUBTITLE", "ENCODEDBY", "REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK",
        "REPLAYGAIN_ALBUM_GAIN", "REPLAYGAIN_ALBUM_PEAK", "REPLAYGAIN_REFERENCE_LOUDNESS", "R128_TRACK_GAIN",
        "R128_ALBUM_GAIN", "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ARTISTID",
        "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_RELEASEGROUPID", "MUSICBRAINZ_RELEASETRACKID", "ACOUSTID_ID",
        "INITIALKEY",
    ]

    /// The TagLib names of keys people type from other tools' vocabularies, suggested when one is refused.
    static let knownKeyFor: [String: String] = [
        "YEAR": "DATE", "TRACK": "TRACKNUMBER", "DISC": "DISCNUMBER", "ALBUM ARTIST": "ALBUMARTIST",
        "ALBUM_ARTIST": "ALBUMARTIST", "TOTALTRACKS": "TRACKTOTAL", "TOTALDISCS": "DISCTOTAL", "KEY": "INITIALKEY",
        "TEMPO": "BPM", "PUBLISHER": "LABEL", "ORGANIZATION": "LABEL", "DESCRIPTION": "COMMENT",
    ]

    /// Why keys outside `knownKeys` are refused, with the TagLib name of those that have one.
    static func unknownKeys(_ keys: [String]) -> String {
        let named = keys.sorted().map { key in knownKeyFor[key].map { "\(key) (TagLib's name: \($0))" } ?? key }
        return "unknown key(s) \(named.joined(separator: ", ")) (use --allow-custom to write them as they are)"
    }

    public struct Refusal: Sendable { public var input: String; public var reason: String }

    /// Resolves the inputs, refuses what is outside the root or unknown, reads current tags and keeps only
    /// real changes. Several edits of one file are combined in order. A file whose format TagLib cannot write
    /// (tags read through FFmpeg: DSF, DSDIFF, Matroska) is refused, or with `skipUnwritable` (a batch over
    /// the whole library, not over files the user named) left out and listed in `unwritable`.
    /// Longest tag value written, in bytes: lyrics run to some KiB; a 20 MB comment made a FLAC file TagLib could
    /// no longer read ("TagLib has no reader for this format").
    static let longestValue = 1 << 20

    static func plan(_ edits: [(input: String, edit: TagEdit)], resolver: PathResolver, database: SpindleDatabase,
                     allowCustom: Bool, reads: TagReads = .inProcess,
                     skipUnwritable: Bool = false) throws -> (plans: [FilePlan], refusals: [Refusal], unwritable: [String]) {
        var refusals: [Refusal] = []
        var unwritable: [String] = []
        var combined: [String: TagEdit] = [:]
        var order: [String] = []
        for (input, edit) in edits {
            let resolution = try resolver.resolve(input)
            // Only the path itself (or with leading components stripped) chooses a file to write.
            guard let path = resolution.resolved, resolution.writeRefusal == nil else {
                refusals.append(Refusal(input: input, reason: resolution.writeRefusal ?? "no such file in the library"))
                continue
            }
            if let refusal = Self.refusal(of: edit, allowCustom: allowCustom) {
                refusals.append(Refusal(input: input, reason: refusal))
                continue
            }
            if combined[path] == nil { order.append(path); combined[path] = TagEdit() }
            for (k, v) in edit.set { combined[path]!.set[k] = v; combined[path]!.unset.removeAll { $0 == k } }
            for k in edit.unset { combined[path]!.set[k] = nil; if !combined[path]!.unset.contains(k) { combined[path]!.unset.append(k) } }
        }
        // Each file's state through its confined folder chain (what the write will be checked against), then
        // the current tags of those inside the root, read in workers.
        var states: [String: FileState] = [:]
        for path in order {
            do {
                let file = try ConfinedFile(root: resolver.root, relative: path)
                if let refusal = TagFileWrite.refusal(of: file) {
                    refusals.append(Refusal(input: path, reason: refusal))
                    continue
                }
                states[path] = try file.state()
            } catch {
                refusals.append(Refusal(input: path, reason: "cannot read its tags: \(error)"))
            }
        }
        let readable = order.filter { states[$0] != nil }
        let tags = try reads.read(readable.map { resolver.root.absolute($0) })
        var plans: [FilePlan] = []
        for (path, read) in zip(readable, tags) {
            let state = states[path]!
            let current: TagSnapshot
            switch read {
            case .success(let snapshot): current = snapshot
            case .failure(let error):
                refusals.append(Refusal(input: path, reason: "cannot read its tags: \(error.reason)"))
                continue
            }
            guard current.writable else {
                if skipUnwritable {
                    unwritable.append(path)
                } else {
                    // Name the container as well as the codec: TagLib writes AAC in .m4a but not in .aac or .mka.
                    let ext = (path as NSString).pathExtension.lowercased()
                    let kind = ext.isEmpty ? "file" : "." + ext + " file"
                    let holding = current.codec.isEmpty ? "" : " holding \(current.codec)"
                    refusals.append(Refusal(input: path, reason: "its format's tags can be read but not written "
                                            + "(TagLib 1.13 cannot write tags into this \(kind)\(holding))"))
                }
                continue
            }
            let edit: TagEdit
            switch TagValueFit.fitted(combined[path]!, codec: current.codec) {
            case .success(let fitted): edit = fitted
            case .failure(let refusal):
                refusals.append(Refusal(input: path, reason: refusal.reason))
                continue
            }
            let changes = Self.changes(edit, to: current)
            guard !changes.isEmpty else { continue }
            let fileId = try database.writer.read { db in try FileQueries.fileId(db, rootPath: resolver.root.path, path: path) }
            plans.append(FilePlan(path: path, fileId: fileId, changes: changes, expected: state))
        }
        return (plans, refusals, unwritable)
    }

    /// Why an edit is refused whatever file it is for: keys outside TagLib's names (without `--allow-custom`),
    /// or a value over `longestValue`.
    private static func refusal(of edit: TagEdit, allowCustom: Bool) -> String? {
        let bad = edit.keys.filter { !allowCustom && !knownKeys.contains($0) }
        if !bad.isEmpty { return Self.unknownKeys(bad) }
        if let (key, bytes) = edit.set.lazy.flatMap({ key, values in values.map { (key, $0.utf8.count) } })
            .first(where: { $0.1 > Self.longestValue }) {
            return "its \(key) value is \(bytes >> 10) KiB; a tag value may be at most "
                + "\(Self.longestValue >> 10) KiB (a FLAC file's comments hold 16 MiB in all, and players read tags whole)"
        }
        return nil
    }

    /// What `edit` changes in a file whose tags are `current`: keys set to other values, keys removed that are there.
    private static func changes(_ edit: TagEdit, to current: TagSnapshot) -> [KeyChange] {
        var changes: [KeyChange] = []
        for key in edit.set.keys.sorted() where current.properties[key] != edit.set[key] {
            changes.append(KeyChange(key: key, old: current.properties[key], new: edit.set[key]))
        }
        for key in edit.unset.sorted() where current.properties[key] != nil {
            changes.append(KeyChange(key: key, old: current.properties[key], new: nil))
        }
        return changes
    }

    /// The plan as a diff: file, key, old → new.
    public static func diff(_ plans: [FilePlan]) -> String {
        func show(_ v: [String]?) -> String { v.map { $0.map { "\"\(TerminalText.safe($0))\"" }.joined(separator: ", ") } ?? "(none)" }
        return plans.map { p in
            ([TerminalText.safe(p.path)] + p.changes.map { "  \(TerminalText.safe($0.key)): \(show($0.old)) → \(show($0.new))" })
                .joined(separator: "\n")
        }.joined(separator: "\n")
    }

    public struct Report: Sendable {
        public var batchId: Int64?
        public var filesChanged = 0
        public var keysChanged = 0
        /// The files written (their paths; `filesChanged` of them, or the planned ones in a dry run: none).
        public var written: [String] = []
        public var failed: [(path: String, reason: String)] = []
        public var conflicts: [(path: String, reason: String)] = []
        public var refusals: [Refusal] = []
        public var diff = ""
        public var dryRun = false
    }

    /// Why one file's write or undo failed, without its path: reports and the batch's rows put the path
    /// beside it already, and the tag, confinement and decode errors begin with it (a decode error's, with
    /// the /proc/self/fd path a write reaches the file through).
    static func reason(_ error: Error) -> String {
        switch error {
        case let e as TagError: return e.reason
        case let e as ConfinementError: return e.reason
        case let e as DecodeError: return e.reason
        default: return "\(error)"
        }
    }

    static func json(_ v: [String]?) -> String? { v.map { JSONValue.array($0.map { .string($0) }).serialized() } }
    static func values(_ json: String?) -> [String]? {
        guard let json, let list = try? JSONDecoder().decode([String].self, from: Data(json.utf8)) else { return nil }
        return list
    }

    /// Journals the whole batch, then writes file by file; each file ends wholly old or wholly new.
    static func apply(_ plans: [FilePlan], command: String, database: SpindleDatabase, root: LibraryRoot,
                      id3v2Version: Int = 0) throws -> Report {
        var report = Report()
        guard !plans.isEmpty else { return report }
        let journal = plans.flatMap { plan in
            plan.changes.map { c in
                TagEditRecord(batchId: 0, fileId: plan.fileId, path: plan.path, key: c.key, oldValues: json(c.old), newValues: json(c.new))
            }
        }
        let batchId = try database.writer.write { db in try TagBatchQueries.create(db, command: command, edits: journal) }
        report.batchId = batchId
        // Asked to stop, the batch ends between files: the files not reached stay as they were, unmarked, and
        // the batch is partial (undo restores the ones written).
        for plan in plans where !StopRequest.isRequested {
            do {
                let after = try TagFileWrite.write(plan.edit, to: plan.path, expected: plan.expected, root: root,
                                                   id3v2Version: id3v2Version)
                try database.writer.write { db in
                    try TagBatchQueries.mark(db, batch: batchId, path: plan.path, status: .applied,
                                             after: (after.size, after.mtimeNs, after.contentKey))
                    try keepAnalysis(db, fileId: plan.fileId, before: plan.expected, after: after)
                }
                report.filesChanged += 1
                report.keysChanged += plan.changes.count
                report.written.append(plan.path)
            } catch let conflict as TagError where conflict.kind == .conflict {
                try database.writer.write { db in
                    try TagBatchQueries.mark(db, batch: batchId, path: plan.path, status: .conflict, error: conflict.reason)
                }
                report.conflicts.append((plan.path, conflict.reason))
            } catch {
                let reason = Self.reason(error)
                try database.writer.write { db in
                    try TagBatchQueries.mark(db, batch: batchId, path: plan.path, status: .failed, error: reason)
                }
                report.failed.append((plan.path, reason))
            }
        }
        let whole = report.written.count + report.failed.count + report.conflicts.count == plans.count
        let status: TagBatchRecord.Status = whole && report.failed.isEmpty && report.conflicts.isEmpty ? .applied : .partial
        try database.writer.write { db in try TagBatchQueries.setStatus(db, batch: batchId, status) }
        return report
    }

    /// Restores the old values of a batch. A file changed since the batch is reported, not clobbered; a batch
    /// already undone is refused. A file that could not be restored (a full disk) keeps the batch open, so
    /// undoing it again retries that file rather than moving on to an older batch.
    static func undo(batch: Int64?, database: SpindleDatabase, root: LibraryRoot) throws -> Report {
        guard let record = try database.writer.read({ db in try TagBatchQueries.batch(db, id: batch, rootPath: root.path) }),
              let id = record.id else {
            throw ConfigurationError(batch.map { "no tag batch #\($0)" } ?? "no tag batch of this library to undo")
        }
        // Its paths are relative to that library's root: read against this one, they name nothing or other files.
        if let other = try database.writer.read({ db in try TagBatchQueries.otherLibrary(db, batch: id, rootPath: root.path) }) {
            throw ConfigurationError("tag batch #\(id) changed files of the library at \(other): undo it with --library \(other)")
        }
        guard record.status != .undone else {
            throw ConfigurationError("tag batch #\(id) was already undone; undoing it twice is refused")
        }
        // Batches undo newest first, as a stack: a file a later batch wrote over holds that batch's tags, and
        // undoing this one would take them for an edit made since and close this batch with its tags in place.
        let later = try database.writer.read { db in try TagBatchQueries.laterOverwrites(db, batch: id) }
        if let newest = later.first {
            let others = later.count > 1 ? " (and #\(later.dropFirst().map { String($0.batch) }.joined(separator: ", #")))" : ""
            throw ConfigurationError("tag batch #\(newest.batch)\(others) changed \(newest.path) after #\(id): "
                + "undo #\(newest.batch) first (batches undo newest first)")
        }
        let edits = try database.writer.read { db in try TagBatchQueries.applied(db, batch: id) }
        var byPath: [String: [TagEditRecord]] = [:]
        var order: [String] = []
        for edit in edits {
            if byPath[edit.path] == nil { order.append(edit.path) }
            byPath[edit.path, default: []].append(edit)
        }
        // As for the batch itself: refused whole, before any file, on a read-only mount or a disk without room.
        // Undoing changes each key back from its new values to its old.
        try TagBatchSpace.of(order.map { path in
            (path, TagBatchSpace.growth(byPath[path]!.map { KeyChange(key: $0.key, old: values($0.newValues), new: values($0.oldValues)) }))
        }, root: root).check()
        var report = Report()
        report.batchId = id
        for path in order {
            let entries = byPath[path]!
            var edit = TagEdit()
            for entry in entries {
                if let old = values(entry.oldValues) { edit.set[entry.key] = old } else { edit.unset.append(entry.key) }
            }
            // The file must still be the one the batch wrote: an edit made since is reported, not clobbered.
            let written = FileState(size: entries[0].sizeAfter ?? -1, mtimeNs: entries[0].mtimeAfterNs ?? -1,
                                    contentKey: entries[0].contentKeyAfter)
            do {
                let after = try TagFileWrite.write(edit, to: path, expected: written, root: root)
                try database.writer.write { db in
                    try TagBatchQueries.mark(db, batch: id, path: path, status: .undone)
                    try TagBatchQueries.restored(db, before: id, fileId: entries[0].fileId, path: path,
                                                 to: (after.size, after.mtimeNs, after.contentKey))
                    try keepAnalysis(db, fileId: entries[0].fileId, before: written, after: after)
                }
                report.filesChanged += 1
                report.keysChanged += entries.count
                report.written.append(path)
            } catch let conflict as TagError where conflict.kind == .conflict {
                let reason = "the file changed after the batch; its tags were left as they are"
                report.conflicts.append((path, reason))
                try database.writer.write { db in
                    try TagBatchQueries.mark(db, batch: id, path: path, status: .conflict, error: reason + " (" + conflict.reason + ")")
                }
            } catch let error as ConfinementError where error.reason == "no such file" {
                report.conflicts.append((path, "the file is gone"))
                try database.writer.write { db in
                    try TagBatchQueries.mark(db, batch: id, path: path, status: .conflict, error: "the file is gone")
                }
            } catch {
                // Left 'applied': undoing the batch again retries this file.
                report.failed.append((path, Self.reason(error)))
            }
        }
        if report.failed.isEmpty {
            try database.writer.write { db in try TagBatchQueries.setStatus(db, batch: id, .undone) }
        }
        return report
    }

    /// A tag write replaces a file only by a copy whose decoded audio equals the original's, so the analysis
    /// of the original holds for the copy: without this every tag write (`tags write-analysis` over a whole
    /// library included) made the next nightly run decode and analyse every file it touched again.
    static func keepAnalysis(_ db: Database, fileId: Int64?, before: FileState?, after: FileState) throws {
        guard let fileId, let old = before?.contentKey, let new = after.contentKey, old != new else { return }
        try AnalysisQueries.carryOver(db, fileId: fileId, from: old, to: new)
    }
}
