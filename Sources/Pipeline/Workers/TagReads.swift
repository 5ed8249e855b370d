import Foundation
import Tagging

/// How tag batches read the current tags of the files they edit: in worker processes, like the tags stage,
/// so a file that crashes TagLib costs that file only; in-process where no worker executable exists (unit
/// tests of the planning itself).
struct TagReads: Sendable {
    /// The tags of each file (absolute paths), in order, or why they could not be read.
    let read: @Sendable ([String]) throws -> [Result<TagSnapshot, TagError>]

    static let inProcess = TagReads { paths in
        paths.map { path in
            Result { try TagReader.read(path: path) }.mapError { $0 as? TagError ?? TagError(path: path, reason: "\($0)") }
        }
    }

    static func workers(_ settings: Settings) -> TagReads {
        TagReads { paths in
            guard !paths.isEmpty else { return [] }
            let pool = try WorkerPool(settings: settings)
            let jobs = paths.enumerated().map { i, path in
                PoolJob(job: WorkerJob(id: i, kind: .tags, path: path), relativePath: path, fileId: Int64(i), contentKey: nil,
                        timeout: settings.runtime.timeoutBase)
            }
            var results = [Result<TagSnapshot, TagError>?](repeating: nil, count: paths.count)
            try pool.process(jobs) { result in
                let i = result.job.job.id
                if let tags = result.reply?.tags {
                    results[i] = .success(tags)
                } else {
                    let reason = result.reply?.tagError ?? result.failure ?? "the worker gave no result"
                    results[i] = .failure(TagError(path: paths[i], reason: reason))
                }
            }
            return results.enumerated().map { i, r in r ?? .failure(TagError(path: paths[i], reason: "not read")) }
        }
    }
}
