import Analysis
import AudioDecoding
import Foundation
import Tagging

/// One unit of work for a worker process: read the tags of a file, decode and analyse it, or only decode it
/// (bench's baseline).
struct WorkerJob: Codable, Sendable {
    enum Kind: String, Codable, Sendable { case tags, analyze, decode }
    var id: Int
    var kind: Kind
    var path: String
    /// Time each analyzer (bench).
    var profile = false
    /// Only these of the enabled analyzers (the ones whose results are stale for this file); nil: all.
    var analyzers: Set<String>?
    var frames: FramesHandoff

    init(id: Int, kind: Kind, path: String, profile: Bool = false, analyzers: Set<String>? = nil,
         frames: FramesHandoff = .inReply) {
        self.id = id
        self.kind = kind
        self.path = path
        self.profile = profile
        self.analyzers = analyzers
        self.frames = frames
    }
}

/// A worker's answer, one JSON line per job.
struct WorkerReply: Codable, Sendable {
    var id: Int
    var tags: TagSnapshot?
    var tagError: String?
    /// The tags could not be read for the file's place, not its bytes (`TagError.Kind.unreachable`), or for a read
    /// error (`FileReadCheck`).
    var tagsUnreachable: Bool?
    var analysis: FileAnalysisOutcome?
    /// Where the visualiser frames went when the job asked for a file (`FramesHandoff.file`).
    var framesFile: String?
}

/// The settings a worker is started with (as one JSON argument).
struct WorkerSettings: Codable, Sendable {
    var analysis: AnalysisOptions
}

/// The worker side: `spindle worker` reads jobs from standard input and answers on standard output, one
/// JSON line each, until its input closes. A crash here (a C library fault, an OOM kill) ends only this
/// process; the supervisor names the signal, charges the file and starts another worker.
public enum WorkerMain {
    public static func run(settingsJSON: String) -> Int32 {
        guard let settings = try? JSONDecoder().decode(WorkerSettings.self, from: Data(settingsJSON.utf8)) else {
            writeStandardError("spindle worker: bad settings\n")
            return 2
        }
        watchParent()
        // A Ctrl-C reaches the whole process group, and systemd's stop the whole service: the supervisor
        // decides what happens to the file in flight (`StopRequest`), so a worker must not die of it (it would
        // be charged with a crash). Its input closing, its parent dying or a SIGKILL ends it.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let fault = FaultInjection.fromEnvironment()
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        while let line = readLine(strippingNewline: true) {
            guard !line.isEmpty, let job = try? decoder.decode(WorkerJob.self, from: Data(line.utf8)) else { continue }
            fault?.apply(to: job.path)
            var reply = WorkerReply(id: job.id)
            switch job.kind {
            case .tags:
                do { reply.tags = try TagReader.read(path: job.path) } catch let e as TagError where e.kind == .unsupported {
                    // A format TagLib does not read has no tags to index; whether it is audio is the decoder's
                    // call (the analyze stage reports a file that is not).
                    reply.tags = TagSnapshot(properties: [:], codec: "", durationSeconds: nil, bitrateKbps: nil,
                                             sampleRate: nil, channels: nil, bitDepth: nil)
                } catch let e as TagError {
                    reply.tagError = e.reason
                    if e.kind == .unreachable { reply.tagsUnreachable = true }
                    // TagLib takes a read error for a file it cannot parse.
                    if e.kind == .failed, let failure = FileReadCheck.failure(path: job.path) {
                        reply.tagError = failure
                        reply.tagsUnreachable = true
                    }
                } catch {
                    reply.tagError = "\(error)"
                }
            case .analyze:
                var options = settings.analysis
                if let only = job.analyzers { options.enabled.formIntersection(only) }
                let sink = options.enabled.contains(SpectrumFrameAnalyzer.entry.name) ? job.frames.sink(job: job.id) : nil
                var outcome = FileAnalysis.run(path: job.path, options: options, profile: job.profile, framesSink: sink)
                reply.framesFile = sink?.finish(&outcome)
                reply.analysis = outcome
            case .decode:
                reply.analysis = FileAnalysis.run(path: job.path, options: settings.analysis, analyze: false)
            }
            guard var data = try? encoder.encode(reply) else { continue }
            data.append(0x0A)
            // The supervisor is gone (killed, or stopped by a signal): nobody is left to answer.
            guard writeAll(STDOUT_FILENO, data) else { return 0 }
        }
        return 0
    }
}

/// A worker whose supervisor died (killed with SIGKILL, say) must not linger, even inside a file that
/// hangs: once the parent is gone the worker is re-parented, and this thread notices and exits.
private func watchParent() {
    let parent = getppid()
    Thread {
        while true {
            sleep(1)
            if getppid() != parent { _exit(1) }
        }
    }.start()
}

/// Test hook: SPINDLE_TEST_FAULT="crash:TEXT" or "hang:TEXT" makes a worker crash with SIGSEGV, or hang,
/// on any file whose path contains TEXT — the faults a C library can cause, on demand.
struct FaultInjection {
    enum Mode { case crash, hang }
    let mode: Mode
    let match: String

    static func fromEnvironment() -> FaultInjection? {
        guard let spec = ProcessInfo.processInfo.environment["SPINDLE_TEST_FAULT"] else { return nil }
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        switch parts[0] {
        case "crash": return FaultInjection(mode: .crash, match: parts[1])
        case "hang": return FaultInjection(mode: .hang, match: parts[1])
        default: return nil
        }
    }

    func apply(to path: String) {
        guard path.contains(match) else { return }
        switch mode {
        case .crash:
            // A real fault, as a C library would cause: the default action, not a catchable raise.
            signal(SIGSEGV, SIG_DFL)
            raise(SIGSEGV)
        case .hang:
            // Said on standard error, so a test knows the file is in flight and which process holds it.
            writeStandardError("spindle worker \(getpid()): hanging on \(path)\n")
            while true { sleep(60) }
        }
    }
}
