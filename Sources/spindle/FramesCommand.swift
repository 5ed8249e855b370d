import Analysis
import ArgumentParser
import Foundation
import GRDB
import Library
import Pipeline
import Store

struct FramesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "Visualiser frames of one analysed file.",
        discussion: """
            Reads the stored frames of FILE (relative to the library root, or absolute inside it). A file \
            that has not been analysed is analysed on the spot (frames only). --json prints an array of \
            frames, each an array of band levels from 0 to 1.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print the frames as JSON.") var json = false
    @Argument(help: "The audio file.") var file: String

    func run() throws {
        try runCommand {
            let settings = try global.settings(jobs: 1, only: ["frames"])
            let frames = try stored(settings) ?? computed(settings)
            if json {
                let array = JSONValue.array((0..<frames.count).map { i in
                    .array(frames.frame(i).map { .from($0, digits: 4) })
                })
                print(array.serialized())
            } else {
                print(String(format: "%d frames × %d bands at %g fps", frames.count, frames.bands, frames.fps))
                let levels = " ▁▂▃▄▅▆▇█".map { String($0) }
                for i in stride(from: 0, to: frames.count, by: max(1, Int(frames.fps))).prefix(40) {
                    let bars = frames.frame(i).map { levels[min(8, Int($0 * 8.999))] }.joined()
                    print(String(format: "%7.2f s  ", Double(i) / frames.fps) + bars)
                }
            }
            return 0
        }
    }

    private func stored(_ settings: Settings) throws -> VisualFrames? {
        guard let library = settings.libraryPath, FileManager.default.fileExists(atPath: settings.databasePath),
              let root = try? LibraryRoot(path: library) else { return nil }
        let relative = try LibraryJobs.relativePath(file, root: root)
        let database = try SpindleDatabase(path: settings.databasePath)
        return try database.writer.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT v.fps, v.bands, v.data FROM vis_frames v JOIN files f ON f.id = v.file_id
                JOIN library_roots r ON r.id = f.root_id WHERE r.path = ? AND f.path = ?
                """, arguments: [root.path, relative]) else { return nil }
            let data: Data = row[2]
            return VisualFrames(fps: row[0], bands: row[1], data: [UInt8](data))
        }
    }

    private func computed(_ settings: Settings) throws -> VisualFrames {
        // With a library, the file is read inside it only: through its folder chain, following a symlink
        // only to a target inside the root. Without one, any file may be analysed, as `inspect` does.
        var confined: ConfinedFile?
        if let library = settings.libraryPath, let root = try? LibraryRoot(path: library) {
            do {
                confined = try ConfinedFile(root: root, relative: try LibraryJobs.relativePath(file, root: root))
            } catch let error as ConfinementError {
                throw CommandFailure.fatal("\(file): \(error.reason)")
            }
        }
        let outcome = withExtendedLifetime(confined) {
            FileAnalysis.run(path: confined?.path ?? file, options: settings.analysis)
        }
        guard outcome.error == nil, let frames = outcome.analysis?.frames else {
            throw CommandFailure.fatal("\(file): \(outcome.error ?? "no frames")")
        }
        return frames
    }
}
