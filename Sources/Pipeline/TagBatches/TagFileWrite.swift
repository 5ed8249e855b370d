import AudioDecoding
import Foundation
import Library
import Tagging

/// One file's tag write as batches and undo make it: the file reached through its folder chain without
/// following symlinks (confinement holds at write time, not only when the batch was planned), skipped as
/// a conflict when it is no longer the version the edit was planned against, and replaced only by a copy
/// whose decoded audio equals the original's.
enum TagFileWrite {
    /// Why a file whose permissions deny this user writing it is left alone: TagLib's own words, on the copy,
    /// were "TagLib could not save the file".
    static let readOnly = "the file is read-only for this user: left as it is (make it writable, chmod u+w, to edit its tags)"

    /// Why a file another program is writing is left alone: replaced by the edited copy, the rest of that
    /// program's writing (a copy or a download paused halfway) would go to the replaced file, and be lost.
    static let beingWritten = "another program has the file open for writing (a copy or a download still under way?): "
        + "left as it is; edit it once that program is done"

    /// Why `file` is left alone, asked when a batch is planned and again before each write: its permissions
    /// deny this user writing it, or another program is writing it. Nil when it may be written.
    static func refusal(of file: ConfinedFile) -> String? {
        if file.deniesWriting { return readOnly }
        if file.openForWritingElsewhere { return beingWritten }
        return nil
    }

    /// Writes `edit` to `relativePath` and returns the file's state afterwards (for undo's conflict check).
    /// Throws a `.conflict` TagError when the file changed since `expected`; any other error leaves it untouched.
    static func write(_ edit: TagEdit, to relativePath: String, expected: FileState?, root: LibraryRoot,
                      id3v2Version: Int = 0) throws -> FileState {
        let file = try ConfinedFile(root: root, relative: relativePath)
        // Made read-only or opened by a writer since the batch was planned (an undo), or planned by a caller that
        // did not check.
        if let refusal = refusal(of: file) { throw TagError(path: relativePath, reason: refusal) }
        let target = TagWriteTarget(directory: file.directory, name: file.name,
                                    temporaryName: SpindleTemporary.name(extension: (file.name as NSString).pathExtension),
                                    display: relativePath)
        let checks = TagWriteChecks(original: { _ in
            guard let expected else { return }
            if let change = try file.state().difference(from: expected) {
                throw TagError(path: relativePath, reason: "the file changed since the edit was planned (\(change)); skipped",
                               kind: .conflict)
            }
        }, audio: { original, copy in
            // Both are reached through /proc/self/fd (see `TagWriteTarget`): the reasons are told without
            // those paths, which name nothing the user knows.
            let before: AudioDigest
            do { before = try AudioDigest.of(path: original) } catch {
                throw TagError(path: relativePath, reason: "its audio does not decode (\(TagBatch.reason(error))), so an edited "
                    + "copy could not be checked against it; the file is untouched")
            }
            let after: AudioDigest
            do { after = try AudioDigest.of(path: copy) } catch {
                throw TagError(path: relativePath, reason: "the edited copy does not decode (\(TagBatch.reason(error))); the original is untouched")
            }
            guard before == after else {
                throw TagError(path: relativePath, reason: "the edited copy's audio differs from the original's "
                    + "(\(after) instead of \(before)); the original is untouched")
            }
        })
        try TagWriter.apply(edit, at: target, id3v2Version: id3v2Version, checks: checks)
        return try file.state()
    }
}
