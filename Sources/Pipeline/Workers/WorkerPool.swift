import Analysis
import Foundation

/// A job for the pool, with the file it is about and how long it may take.
struct PoolJob: Sendable {
    var job: WorkerJob
    /// The file relative to the library root (the job carries the absolute path).
    var relativePath: String
    var fileId: Int64
    var contentKey: String?
    var timeout: Double
}

/// What came back for a job: the worker's reply, or how the worker died on it.
struct PoolResult: Sendable {
    var job: PoolJob
    var reply: WorkerReply?
    var failure: String?
    /// No worker could be started for the job: the machine's failure (open files, processes, memory), not
    /// the file's. The supervisor that posts it stops; `process` leaves the file uncharged and, once the
    /// other workers are done, ends the stage with it.
    var noWorker: String?
}

/// Supervises `jobs` worker processes. Each supervisor thread owns one worker, feeds it jobs from the input
/// queue and posts results; a worker that dies or hangs costs only the file it was on: the file is reported
/// with the signal or the timeout, and a fresh worker takes over.
final class WorkerPool: @unchecked Sendable {
    let executable: String
    let arguments: [String]
    let jobs: Int

    init(executable: String, settings: WorkerSettings, jobs: Int) throws {
        self.executable = executable
        let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        arguments = ["worker", "--settings", json]
        self.jobs = max(1, jobs)
    }

    /// A pool of `spindle worker` processes analysing with the settings' options; `jobs` of them (default:
    /// the settings' number).
    convenience init(settings: Settings, jobs: Int? = nil) throws {
        try self.init(executable: try Self.defaultExecutable(), settings: WorkerSettings(analysis: settings.analysis),
                      jobs: jobs ?? settings.jobs)
    }

    /// Runs until `input` is closed and drained, then closes `output`.
    func run(input: BoundedQueue<PoolJob>, output: BoundedQueue<PoolResult>) {
        let group = DispatchGroup()
        for _ in 0..<jobs {
            group.enter()
            let thread = Thread { [self] in
                supervise(input: input, output: output)
                group.leave()
            }
            thread.start()
        }
        Thread {
            group.wait()
            output.close()
        }.start()
    }

    private func supervise(input: BoundedQueue<PoolJob>, output: BoundedQueue<PoolResult>) {
        var worker: WorkerProcess?
        let encoder = JSONEncoder(), decoder = JSONDecoder()
        // A stop request ends the loop between files; the file in flight is put down (below), uncharged.
        while !StopRequest.isRequested, let job = input.take() {
            guard let line = try? encoder.encode(job.job) else {
                output.put(PoolResult(job: job, failure: "the job could not be encoded for a worker"))
                continue
            }
            // A worker that died while idle (the OOM killer, a stray kill) cannot take the file, which never
            // reached it: a fresh worker takes it, uncharged. Only one that dies on taking it reports the file.
            var taken: WorkerProcess?
            for _ in 0..<2 where taken == nil {
                if worker == nil {
                    do { worker = try startWorker() } catch {
                        output.put(PoolResult(job: job, noWorker: "\(error)"))
                        return
                    }
                }
                if worker!.send(line) { taken = worker } else { worker!.terminate(); worker = nil }
            }
            guard let w = taken else {
                output.put(PoolResult(job: job, failure: "worker stopped before taking the file"))
                continue
            }
            switch w.receive(timeout: job.timeout) {
            case .line(let data):
                if let reply = try? decoder.decode(WorkerReply.self, from: data), reply.id == job.job.id {
                    output.put(PoolResult(job: job, reply: reply))
                } else {
                    w.terminate()
                    worker = nil
                    output.put(PoolResult(job: job, failure: "worker sent an unreadable reply"))
                }
            case .died(let how):
                worker = nil
                output.put(PoolResult(job: job, failure: how))
            case .timedOut:
                w.terminate()
                worker = nil
                output.put(PoolResult(job: job, failure: String(format: "timed out after %.0f s; worker killed", job.timeout)))
            case .stopped:
                w.terminate()
                return
            }
        }
    }

    /// A worker, tried again after a quarter of a second and after a second: a moment's shortage of file
    /// descriptors or processes (another program's burst) passes.
    private func startWorker() throws -> WorkerProcess {
        var waits = [0.25, 1.0]
        while true {
            do { return try WorkerProcess(executable: executable, arguments: arguments) } catch {
                guard !waits.isEmpty, !StopRequest.isRequested else { throw error }
                Thread.sleep(forTimeInterval: waits.removeFirst())
            }
        }
    }

    /// The `spindle` executable to start workers from: this process when it is spindle, else
    /// SPINDLE_EXECUTABLE, else a `spindle` next to this program (tests).
    static func defaultExecutable() throws -> String {
        let me = RunningProgram.path
        if (me as NSString).lastPathComponent == "spindle" { return me }
        if let env = ProcessInfo.processInfo.environment["SPINDLE_EXECUTABLE"], !env.isEmpty { return env }
        for dir in RunningProgram.folders(4) {
            let candidate = dir.appendingPathComponent("spindle").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw PipelineError("cannot find the spindle executable to start workers (set SPINDLE_EXECUTABLE)")
    }
}

extension WorkerPool {
    /// Feeds `jobs` to the workers through a bounded queue and hands every result to `handle` on the
    /// calling thread (the single database writer), in completion order.
    func process(_ jobs: [PoolJob], handle: (PoolResult) throws -> Void) throws {
        guard !jobs.isEmpty else { return }
        let input = BoundedQueue<PoolJob>(capacity: 2 * self.jobs)
        let output = BoundedQueue<PoolResult>(capacity: 4 * self.jobs)
        Thread {
            for job in jobs where StopRequest.isRequested || !input.put(job) { break }
            input.close()
        }.start()
        run(input: input, output: output)
        var failure: Error?
        var noWorker: String?
        while let result = output.take() {
            guard failure == nil else { continue }   // drain so the workers can finish
            if let why = result.noWorker {
                // The machine's failure, not the file's: the file is left for the next run, uncharged (charged,
                // every file left had been failing, and a file failing twice waits for new content or --force),
                // and the other workers go on.
                noWorker = why
                continue
            }
            do { try handle(result) } catch {
                failure = error
                input.close()
            }
        }
        // Stopped early, the feeder may still wait for room in the queue.
        input.close()
        if let failure { throw failure }
        if let noWorker {
            throw PipelineError("cannot start a worker process: \(noWorker); "
                + "the files not done are left for the next run")
        }
    }
}
