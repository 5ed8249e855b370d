import Foundation
import Library
import Store

/// Paths typed on the command line, read as a shell hands them over before any resolver guesses: relative to
/// the library root, then to the current folder, or absolute inside the root (`LibraryRoot.candidates`). A
/// folder stands for every file of the index under it, so `tags set "Artist/Album" --set GENRE=Jazz` and
/// `cd Album && spindle tags set *.flac ...` name the album's files by their own paths.
enum TypedPaths {
    /// The index's present files that `input` names as typed (a folder: every file under it), from the first
    /// candidate that names any; nil when none does.
    static func files(_ input: String, root: LibraryRoot, database: SpindleDatabase) throws -> [String]? {
        try database.writer.read { db -> [String]? in
            guard let rootId = try FileQueries.rootId(db, path: root.path) else { return nil }
            for candidate in root.candidates(forTyped: input) {
                let found = candidate.isEmpty ? try FileQueries.presentPaths(db, rootPath: root.path)
                    : try FileQueries.presentPaths(db, rootId: rootId, at: candidate)
                if !found.isEmpty { return found }
            }
            return nil
        }
    }

    /// Each input as the files it names as typed; else, for a file no scan has indexed yet (an album just
    /// copied in, typed from its folder), the file the resolver finds on disk from a typed candidate (an exact
    /// answer beats any guess from the index); else the input itself, for the resolver's strategies (a
    /// server's path, a tag-built path, a file name).
    static func expanded(_ inputs: [String], resolver: PathResolver, database: SpindleDatabase) throws -> [String] {
        let root = resolver.root
        return try inputs.flatMap { input -> [String] in
            if let found = try files(input, root: root, database: database) { return found }
            for candidate in root.candidates(forTyped: input) where !candidate.isEmpty && candidate != input {
                let direct = try resolver.resolveExactly(candidate)
                if direct.isExact, let path = direct.resolved { return [path] }
            }
            return [input]
        }
    }
}
