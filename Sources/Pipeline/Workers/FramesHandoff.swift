import Analysis
import Foundation

/// How a worker hands over the visualiser frames it computed. They grow with the track (30 frames of 32 bytes
/// a second: 10 MB for a 3-hour mix, 100 MB for a 30-hour audiobook), and inside a JSON reply the supervisor
/// held six times that at once (the line, its base64, the decoded bytes, the record, SQLite's copy): a 3-hour
/// file took the supervisor from 64 to 127 MB. So the analyze stage has them written to a file as they are
/// made, which the database reads in pieces (`FramesFolder`, `VisFramesWrite`); `inspect` and `bench`, which
/// print only their count, have them left out. Neither the worker nor the supervisor then holds them whole.
enum FramesHandoff: Codable, Sendable, Equatable {
    /// In the reply, as every other result: where no folder for the files could be made.
    case inReply
    case leftOut
    /// A file in this folder, named by `WorkerReply.framesFile`.
    case file(folder: String)

    /// Where the frames of job `job` go as they are made; nil: into the result, for the reply.
    func sink(job: Int) -> HandoffSink? {
        switch self {
        case .inReply: return nil
        case .leftOut: return HandoffSink(path: nil)
        case .file(let folder): return HandoffSink(path: folder + "/\(getpid())-\(job)")
        }
    }
}

/// The frames of one job on their way out of the worker: into a file, or nowhere (left out). When the file
/// cannot be written (a full disk), what it took is read back and the rest kept, for the reply as before.
final class HandoffSink: FramesSink {
    private let path: String?
    private var fd: Int32 = -1
    private var written = 0
    /// The frames, once the file failed.
    private var kept: Data?

    init(path: String?) {
        self.path = path
        guard let path else { return }
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd < 0 { kept = Data() }
    }

    deinit { if fd >= 0 { close(fd) } }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard path != nil, !lost else { return }
        if kept != nil { kept!.append(contentsOf: bytes); return }
        if writeAll(fd, bytes) { written += bytes.count; return }
        keepInMemory()
        kept?.append(contentsOf: bytes)
    }

    /// Gives up the file: what it holds comes back into memory, and the file goes. (Read back from the page
    /// cache of a file just written; should even that fail, the frames are lost, and only they.)
    private func keepInMemory() {
        var back = Data(count: written)
        let complete = back.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < written {
                let n = pread(fd, buffer.baseAddress! + offset, written - offset, off_t(offset))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
        close(fd)
        fd = -1
        unlink(path!)
        kept = complete ? back : nil
        lost = !complete
    }

    private var lost = false

    /// Ends the job's frames: the file they are in; or nil, with the frames put in `outcome` where the file
    /// failed, or left out.
    func finish(_ outcome: inout FileAnalysisOutcome) -> String? {
        guard let path, !lost else { return nil }
        if let kept {
            if outcome.analysis != nil { outcome.analysis?.values[AnalysisStorage.framesOutput] = .bytes(kept) }
            return nil
        }
        let closed = close(fd) == 0
        fd = -1
        guard closed, outcome.analysis != nil else { unlink(path); return nil }
        return path
    }
}
