import Analysis
import Foundation

/// How a worker hands over the visualiser frames it computed. They grow with the track (30 frames of 32 bytes
/// a second: 10 MB for a 3-hour mix, 100 MB for a 30-hour audiobook), and inside a JSON reply the supervisor
/// held six times that at once (the line, its base64, the decoded bytes, the record, SQLite's copy): a 3-hour
/// file took the supervisor from 64 to 127 MB. So the analyze stage has them written to a file, which the
/// database reads in pieces (`FramesFolder`, `VisFramesWrite`); `inspect` and `bench`, which print only their
/// count, have them left out.
enum FramesHandoff: Codable, Sendable, Equatable {
    /// In the reply, as every other result: where no folder for the files could be made.
    case inReply
    case leftOut
    /// A file in this folder, named by `WorkerReply.framesFile`.
    case file(folder: String)

    /// Takes the frames out of `outcome` as this hand-off says, and returns the file they went to. When that
    /// file cannot be written (a full disk), they stay in the reply.
    func apply(to outcome: inout FileAnalysisOutcome, job: Int) -> String? {
        guard case .bytes(let data)? = outcome.analysis?.values[AnalysisStorage.framesOutput] else { return nil }
        switch self {
        case .inReply:
            return nil
        case .leftOut:
            outcome.analysis?.values[AnalysisStorage.framesOutput] = nil
            return nil
        case .file(let folder):
            let path = folder + "/\(getpid())-\(job)"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return nil }
            let written = writeAll(fd, data)
            guard close(fd) == 0, written else {
                unlink(path)
                return nil
            }
            outcome.analysis?.values[AnalysisStorage.framesOutput] = nil
            return path
        }
    }
}
