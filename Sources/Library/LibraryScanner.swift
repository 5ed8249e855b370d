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
        let pass = try ScanPass(scanner: self, rootId: try rootId())
        pass.walk(progress: progress)
        try pass.checkWhatIsMounted()
        pass.compare()
        pass.matchMoves()
        try pass.store()
        pass.report.seconds = Date().timeIntervalSince(started)
        return pass.report
    }

    /// A folder inside the root that is there, on another device than the one mounted on it at the last scan.
    /// (One that is gone was removed.)
    func isAway(_ relative: String, device: UInt64) -> Bool {
        var folder = stat()
        guard lstat(root.absolute(relative), &folder) == 0, (folder.st_mode & S_IFMT) == S_IFDIR else { return false }
        return UInt64(folder.st_dev) != device
    }
}
