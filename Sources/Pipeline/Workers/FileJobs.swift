import Analysis
import Foundation
import Library

/// Files decoded (and analysed) in worker processes, outside any run: `inspect` and `bench` use the same
/// pool, queues and crash isolation as `analyze`, so a file that crashes a C library costs that file only,
/// and bench measures what users run.
enum FileJobs {
    /// One outcome per file, in the order given. A worker that died or hung on a file gives an outcome with
    /// the signal or the timeout as its error. `each` sees the outcomes in that order as soon as every
    /// earlier one is in, so results can be shown while later files are still being decoded; when it
    /// throws, no further file starts (those in flight finish) and the error is rethrown.
    static func run(_ files: [String], kind: WorkerJob.Kind, settings: Settings, jobs: Int? = nil,
                    profile: Bool = false,
                    each: (FileAnalysisOutcome) throws -> Void = { _ in }) throws -> [FileAnalysisOutcome] {
        let pool = try WorkerPool(settings: settings, jobs: jobs)
        let poolJobs = files.enumerated().map { i, file -> PoolJob in
            // The length is unknown before decoding: estimate it from the size at a low bitrate.
            var st = stat()
            let size = stat(file, &st) == 0 ? Double(st.st_size) : 0
            // Their callers print the frames' count, not the frames.
            return PoolJob(job: WorkerJob(id: i, kind: kind, path: file, profile: profile, frames: .leftOut), relativePath: file, fileId: Int64(i),
                           contentKey: nil, timeout: settings.runtime.timeout(audioSeconds: size / 8000))
        }
        var outcomes = [FileAnalysisOutcome?](repeating: nil, count: files.count)
        var shown = 0
        try pool.process(poolJobs) { result in
            let i = result.job.job.id
            outcomes[i] = result.reply?.analysis ?? {
                var failed = FileAnalysisOutcome(path: files[i])
                failed.error = result.failure ?? "the worker gave no result"
                return failed
            }()
            while shown < files.count, let next = outcomes[shown] {
                shown += 1
                try each(next)
            }
        }
        return outcomes.enumerated().map { i, outcome in outcome ?? FileAnalysisOutcome(path: files[i]) }
    }

    /// Files named on the command line, each folder replaced by the audio files a library scan would find
    /// under it (hidden entries and Spindle's own temporaries passed over), in path order and named from the
    /// folder as typed; anything else as it came (a missing file is that file's error, not the command's,
    /// and so is a folder without audio). A folder or file under it that the walk could not look at stays
    /// in the list too, so that its error line says why it was not analysed instead of nothing.
    static func expandingFolders(_ targets: [String]) throws -> [String] {
        try targets.flatMap { target -> [String] in
            guard isFolder(target) else { return [target] }
            let folder = try LibraryRoot(path: target)
            var found: [String] = []
            LibraryWalker(root: folder).walk(file: { found.append($0.relativePath) },
                                                  skipped: { if $0.unreadable, !$0.relativePath.isEmpty { found.append($0.relativePath) } })
            // A folder without audio stays itself: its error line says so.
            guard !found.isEmpty else { return [target] }
            let prefix = target.hasSuffix("/") ? target : target + "/"
            return found.sorted().map { prefix + $0 }
        }
    }

    static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
