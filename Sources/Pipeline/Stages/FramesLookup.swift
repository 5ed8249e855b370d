import Analysis
import Foundation
import Library
import Store

/// `spindle frames FILE`: the stored visualiser frames of a library file, or, for a file not analysed yet,
/// frames computed on the spot. With a library (given, or the one the database knows), only files inside it
/// are read: through their folder chain, following a symlink only to a target inside the root. Without one,
/// any file, as `inspect` does.
///
/// FILE is read as typed first (relative to the root, to the current folder, or absolute inside the root);
/// when nothing is there, as a player's or server's path through the four-strategy resolver, as `similar`
/// and the read API's `/visualizer/frames` take it.
public enum FramesLookup {
    /// The frames, and when FILE named no file and another was found by its name or words, which one and how
    /// (for a person, who may have mistyped the name).
    public static func frames(of file: String, settings: Settings) throws -> (frames: VisualFrames, guess: String?) {
        let database = FileManager.default.fileExists(atPath: settings.databasePath)
            ? try SpindleDatabase.forReading(settings.databasePath) : nil
        guard let library = try? LibraryJobs.libraryPath(settings, database: database),
              let root = try? LibraryRoot(path: library) else {
            return (try compute(path: file, settings: settings), nil)
        }
        let typed = root.candidates(forTyped: file)
        var candidates = typed.filter { !$0.isEmpty }
        let typedExists = exists(file)
        // A file outside the library that only the database named: read as inspect reads it, as without a library.
        if candidates.isEmpty, typedExists, settings.libraryPath == nil { return (try compute(path: file, settings: settings), nil) }
        var guess: String?
        if let database, !typedExists, !candidates.contains(where: { exists(root.absolute($0)) }) {
            let resolution = try PathResolver(database: database, root: root).resolve(file)
            if let resolved = resolution.resolved {
                candidates = [resolved]
                guess = resolution.guess.map { "frames of \(TerminalText.safe(resolved)) (\($0))" }
            }
        }
        guard let first = candidates.first else {
            // "" is the root itself, which `candidates` names only when it was typed.
            throw ConfigurationError(typed.contains("") ? "\(file): the library root, a folder, not a file"
                                                        : "\(file) is outside the library root \(root.path)")
        }
        if let database {
            for relative in candidates {
                if let stored = try database.writer.read({ db in try AnalysisQueries.frames(db, rootPath: root.path, path: relative) }) {
                    return (VisualFrames(fps: stored.fps, bands: stored.bands, data: stored.data), guess)
                }
            }
        }
        // Not stored: the first candidate that is a file of the library, else the reason the first is not.
        var confined: ConfinedFile?
        var refusal: ConfinementError?
        for relative in candidates where confined == nil {
            do { confined = try ConfinedFile(root: root, relative: relative) } catch let error as ConfinementError {
                if relative == first { refusal = error }
            }
        }
        guard let confined else { throw PipelineError("\(file): \(refusal?.reason ?? "no such file")") }
        return (try withExtendedLifetime(confined) { try compute(path: confined.path, display: file, settings: settings) }, guess)
    }

    /// Whether anything (a file, a folder, a symlink) is at `path`.
    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func compute(path: String, display: String? = nil, settings: Settings) throws -> VisualFrames {
        var options = settings.analysis
        options.enabled = [SpectrumFrameAnalyzer.entry.name]
        let outcome = FileAnalysis.run(path: path, options: options)
        guard outcome.error == nil, let frames = outcome.analysis?.frames else {
            throw PipelineError("\(display ?? path): \(outcome.error ?? "no frames")")
        }
        return frames
    }
}
