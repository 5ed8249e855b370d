import Analysis
import Foundation
import GRDB
@testable import Pipeline
import Store
import TestSupport
import XCTest

/// The pipeline runtime with real child processes: worker crashes and hangs, the lock, SIGKILL and resume.
final class RuntimeTests: XCTestCase {
    var dir = ""
    var library = ""
    var db = ""

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("runtime")
        library = dir + "/music"
        db = dir + "/spindle.db"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func addTracks(_ names: [String], seconds: Double = 4) throws {
        for (i, name) in names.enumerated() {
            let music = Synth.concat(Synth.silence(seconds: 0.2), Synth.clicks(bpm: 90 + Double(i) * 7, seconds: seconds))
            try Synth.write(music, to: library + "/" + name, format: .flac16)
        }
    }

    func status() throws -> [String: Any] {
        let r = try CLI.run(["--db", db, "status", "--json"])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    func failures() throws -> [String: String] {
        let list = try XCTUnwrap(status()["failures"] as? [[String: Any]])
        return Dictionary(list.map { ($0["path"] as! String, $0["error"] as! String) }, uniquingKeysWith: { a, _ in a })
    }

    /// The id of the latest run the database holds (0 before the database or its first run exists).
    func latestRun() throws -> Int64 {
        guard FileManager.default.fileExists(atPath: db) else { return 0 }
        var configuration = Configuration()
        configuration.readonly = true
        return (try? DatabaseQueue(path: db, configuration: configuration).read { db in
            try Int64.fetchOne(db, sql: "SELECT max(id) FROM runs")
        }) ?? 0
    }

    /// Results per path, as a comparable snapshot of the analysis table.
    func results() throws -> [String: String] {
        let database = try SpindleDatabase(path: db)
        return try database.writer.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT f.path, a.status, a.bpm, a.lufs_integrated, a.true_peak_dbtp, a.lead_silence_end_s,
                       a.trail_silence_start_s, a.frames_count, v.data
                FROM files f JOIN analysis a ON a.file_id = f.id LEFT JOIN vis_frames v ON v.file_id = f.id
                """)
            var out: [String: String] = [:]
            for row in rows {
                let data: Data? = row[8]
                out[row[0]] = "\(row[1] as String) \(row[2] as Double? ?? -1) \(row[3] as Double? ?? -1) "
                    + "\(row[4] as Double? ?? -1) \(row[5] as Double? ?? -1) \(row[6] as Double? ?? -1) "
                    + "\(row[7] as Int? ?? -1) \(data?.hashValue ?? 0)"
            }
            return out
        }
    }

    func testWorkerKilledBySIGSEGVCostsOneFile() throws {
        try addTracks(["a.flac", "b.flac", "boom.flac", "c.flac", "d.flac"])
        let r = try CLI.run(["--db", db, "--library", library, "analyze", "--jobs", "2"],
                            environment: ["SPINDLE_TEST_FAULT": "crash:boom"])
        XCTAssertEqual(r.status, 3, r.stderr)
        let s = try status()
        XCTAssertEqual(s["analysed"] as? Int, 4)
        let list = try failures()
        XCTAssertTrue(list["boom.flac"]?.contains("SIGSEGV") ?? false, "\(list)")
    }

    func testFileThatCrashedTwiceIsNotRetriedWithoutForce() throws {
        try addTracks(["ok.flac", "boom.flac"])
        let fault = ["SPINDLE_TEST_FAULT": "crash:boom"]
        let args = ["--db", db, "--library", library, "analyze", "--json"]
        XCTAssertEqual(try CLI.run(args, environment: fault).status, 3)
        XCTAssertEqual(try CLI.run(args, environment: fault).status, 3)    // retried once
        let third = try CLI.run(args, environment: fault)
        XCTAssertEqual(third.status, 0, "a file that crashed twice waits for new content or --force")
        XCTAssertTrue(third.stdout.contains("\"failed\": 0"))
        XCTAssertEqual(try CLI.run(args + ["--force"], environment: fault).status, 3)
        XCTAssertNotNil(try failures()["boom.flac"])
    }

    func testHangingFileIsKilledAfterItsTimeout() throws {
        try addTracks(["fine.flac", "slow.flac"])
        let config = dir + "/spindle.toml"
        try "[runtime]\nworker_timeout_base_s = 2\nworker_timeout_per_audio_s = 0.1\n".write(toFile: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["--db", db, "--library", library, "--config", config, "analyze", "--jobs", "1"],
                            environment: ["SPINDLE_TEST_FAULT": "hang:slow"])
        XCTAssertEqual(r.status, 3, r.stderr)
        // The configured limit killed it (2 s + 0.1 s per second of its 4.2 s), not the default one.
        let failure = try XCTUnwrap(failures()["slow.flac"])
        XCTAssertTrue(failure.contains("timed out after 2 s"), failure)
        XCTAssertEqual(try status()["analysed"] as? Int, 1)
    }

    func testSecondRunExitsFourNamingTheFirstAndStaleLocksAreTakenOver() throws {
        try addTracks(["a.flac", "slow.flac"])
        let first = try CLI.start(["--db", db, "--library", library, "analyze", "--jobs", "1"],
                                  environment: ["SPINDLE_TEST_FAULT": "hang:slow"])
        // Wait for the first run to hold the lock.
        let lockFile = db + ".lock"
        for _ in 0..<100 where ((try? String(contentsOfFile: lockFile, encoding: .utf8)) ?? "").isEmpty {
            Thread.sleep(forTimeInterval: 0.1)
        }
        let second = try CLI.run(["--db", db, "--library", library, "scan"])
        XCTAssertEqual(second.status, 4)
        XCTAssertTrue(second.stderr.contains("pid \(first.processIdentifier)"), second.stderr)
        XCTAssertTrue(second.stderr.contains("started"), second.stderr)
        func latestRunStatus() throws -> String? { (try status()["runs"] as? [[String: Any]])?.first?["status"] as? String }
        XCTAssertEqual(try latestRunStatus(), "running")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        // Until the next run, `status` says what became of the dead one, which the database still calls running.
        Thread.sleep(forTimeInterval: 1.1)
        XCTAssertEqual(try latestRunStatus(), "interrupted")
        let text = try CLI.run(["--db", db, "--library", library, "status"])
        XCTAssertTrue(text.stdout.contains("analyze interrupted") && text.stdout.contains("ended without finishing"), text.stdout)
        // The dead run's lock is stale: the next run takes it and closes the dead run as interrupted.
        let third = try CLI.run(["--db", db, "--library", library, "scan", "--json"])
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertTrue(third.stdout.contains("\"interrupted_runs_closed\": 1"), third.stdout)
    }

    /// `status` and `/health` look at the lock with a shared lock held for an instant; a run starting in that
    /// instant waits it out instead of exiting 4 as if another run held the database.
    func testARunStartingWhileStatusLooksAtTheLockWaitsForIt() throws {
        let fd = open(db + ".lock", O_RDWR | O_CREAT, 0o600)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_SH | LOCK_NB), 0)
        XCTAssertEqual(RunLock.isHeld(databasePath: db), false, "a shared look is not a run")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { flock(fd, LOCK_UN) }
        let lock = try RunLock(databasePath: db, command: "scan")
        XCTAssertEqual(RunLock.isHeld(databasePath: db), true)
        withExtendedLifetime(lock) {}
    }

    /// A worker that cannot be started (too few file descriptors, processes or memory that night) is the
    /// machine's failure. It had been charged to each file as it came, so every file left was failing, and a
    /// file failing twice waits for new content or --force: one bad night kept them unanalysed. Now no file is
    /// charged, and the stage ends with the reason and what to do.
    func testAWorkerThatCannotStartChargesNoFile() throws {
        try addTracks(["a.flac", "b.flac", "c.flac"])
        let pool = try WorkerPool(executable: dir + "/no-such-spindle", settings: WorkerSettings(analysis: AnalysisOptions()), jobs: 2)
        let jobs = ["a.flac", "b.flac", "c.flac"].enumerated().map { i, name in
            PoolJob(job: WorkerJob(id: i, kind: .analyze, path: library + "/" + name), relativePath: name, fileId: Int64(i + 1),
                    contentKey: nil, timeout: 30)
        }
        var handled = 0
        XCTAssertThrowsError(try pool.process(jobs) { _ in handled += 1 }) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("cannot start a worker process: cannot start \(self.dir)/no-such-spindle: No such file or directory"), text)
            XCTAssertTrue(text.hasSuffix("left for the next run"), text)
        }
        XCTAssertEqual(handled, 0, "no file is charged with the machine's failure")
    }

    /// A worker killed while it waits for its next file (the OOM killer, a stray `kill`) had that next file
    /// charged with "worker stopped before taking the file", though the file never reached it: a fresh worker
    /// takes it now.
    func testAWorkerKilledWhileIdleChargesNoFile() throws {
        try addTracks(["a.flac", "b.flac"])
        let pool = try WorkerPool(executable: CLI.executable, settings: WorkerSettings(analysis: AnalysisOptions()), jobs: 1)
        let jobs = ["a.flac", "b.flac"].enumerated().map { i, name in
            PoolJob(job: WorkerJob(id: i, kind: .analyze, path: library + "/" + name), relativePath: name, fileId: Int64(i + 1),
                    contentKey: nil, timeout: 60)
        }
        let input = BoundedQueue<PoolJob>(capacity: 1), output = BoundedQueue<PoolResult>(capacity: 2)
        pool.run(input: input, output: output)
        XCTAssertTrue(input.put(jobs[0]))
        let first = try XCTUnwrap(output.take())
        XCTAssertNotNil(first.reply, first.failure ?? "")
        // The one worker, now waiting for a file: killed, and dead before the next file is given.
        let me = getpid()
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(me)/task")) ?? []
        let children = tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(me)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { pid_t($0) }
        }.filter { ((try? String(contentsOfFile: "/proc/\($0)/cmdline", encoding: .utf8)) ?? "").contains("worker") }
        XCTAssertEqual(children.count, 1, "one worker")
        for child in children { kill(child, SIGKILL) }
        // Dead: waited for as its parent (this process) is told, without collecting it (the pool does). Its ends
        // of the pipes are closed by then. Polling /proc for the zombie state with a 2-s limit let the CI of
        // accf3e1, beside four fuzzers, give the next file to a worker still dying (2 of 15 runs under load).
        for child in children {
            var info = siginfo_t()
            var rc: Int32
            repeat { rc = waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) } while rc != 0 && errno == EINTR
            XCTAssertEqual(rc, 0, "the worker is dead before the next file is given")
        }
        XCTAssertTrue(input.put(jobs[1]))
        input.close()
        let second = try XCTUnwrap(output.take())
        XCTAssertNil(second.failure, "b.flac is charged with the worker's death")
        XCTAssertEqual(second.reply?.id, 1)
        XCTAssertNil(output.take(), "the pool ends")
    }

    /// The executable installed under another name (`spindle-1.4` beside the next version, a distribution's
    /// `spindle.real` behind a wrapper) starts its workers from itself. It looked for a file named `spindle`
    /// and, finding none, failed every run: "cannot find the spindle executable to start workers".
    func testARenamedExecutableStartsWorkersFromItself() throws {
        try addTracks(["a.flac"])
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        let renamed = dir + "/bin/spindle-1.4"
        try FileManager.default.copyItem(atPath: CLI.executable, toPath: renamed)
        let r = try CLI.run(["-c", "exec \"$0\" \"$@\"", renamed, "--db", db, "--library", library, "analyze"],
                            environment: ["SPINDLE_EXECUTABLE": ""], shell: true)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("1 analysed"), r.stdout)
    }

    /// A database reached through a symlink (`~/spindle.db` → `/var/lib/spindle/spindle.db`) was locked beside
    /// the link: a run started by that path ran beside the nightly run started by the real one, and closed it
    /// as interrupted while it went on.
    func testADatabaseReachedThroughASymlinkIsLockedWhereItLives() throws {
        try addTracks(["a.flac"])
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        let link = dir + "/link.db"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: db)
        let lock = try RunLock(databasePath: db, command: "analyze")
        let second = try CLI.run(["--db", link, "--library", library, "scan"])
        XCTAssertEqual(second.status, 4, second.stdout + second.stderr)
        XCTAssertTrue(second.stderr.contains("command analyze"), second.stderr)
        XCTAssertEqual(RunLock.isHeld(databasePath: link), true)
        withExtendedLifetime(lock) {}
        XCTAssertFalse(FileManager.default.fileExists(atPath: link + ".lock"))
    }

    func testSIGKILLAtAnyMomentThenRerunGivesTheCleanRunsResults() throws {
        try addTracks((1...10).map { String(format: "t%02d.flac", $0) }, seconds: 12)
        // The reference: an uninterrupted run in a separate database.
        let cleanDB = dir + "/clean.db"
        XCTAssertEqual(try CLI.run(["--db", cleanDB, "--library", library, "analyze", "--jobs", "1"]).status, 0)
        let saved = db
        db = cleanDB
        let reference = try results()
        db = saved
        XCTAssertEqual(reference.count, 10)
        // Each kill lands a while after the run has recorded itself (a kill timed from the start had, on a loaded
        // machine, landed before the run began, and on a fast one after it ended, so no run was interrupted).
        for delay in [0, 0.3, 1.0] {
            let before = try latestRun()
            let run = try CLI.start(["--db", db, "--library", library, "analyze", "--jobs", "1"])
            while run.isRunning, try latestRun() == before { Thread.sleep(forTimeInterval: 0.01) }
            Thread.sleep(forTimeInterval: delay)
            kill(run.processIdentifier, SIGKILL)
            run.waitUntilExit()
            let database = try SpindleDatabase(path: db)
            XCTAssertEqual(try database.writer.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }, "ok")
        }
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze", "--jobs", "1"]).status, 0)
        XCTAssertEqual(try results(), reference)
        let runs = try XCTUnwrap(status()["runs"] as? [[String: Any]])
        XCTAssertTrue(runs.contains { $0["status"] as? String == "interrupted" })
        XCTAssertEqual(runs.first?["status"] as? String, "completed")
    }

    /// The pipes to a worker were made without close-on-exec, so each worker started inherited the ends the run
    /// held to the others: when the run died by SIGKILL (the OOM killer, a timeout's kill -9), no worker saw its
    /// input end, and they lived on as orphans, some 55 MB each, until the machine restarted. A worker holds
    /// its own two pipes only, and outlives a killed run by no more than the file it was decoding.
    func testWorkersHoldOnlyTheirOwnPipesAndEndWithAKilledRun() throws {
        try addTracks((1...8).map { String(format: "t%02d.flac", $0) }, seconds: 30)
        let run = try CLI.start(["--db", db, "--library", library, "analyze", "--jobs", "2"])
        func children() -> [pid_t] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(run.processIdentifier)/task")) ?? []
            return tasks.flatMap { task in
                ((try? String(contentsOfFile: "/proc/\(run.processIdentifier)/task/\(task)/children", encoding: .utf8)) ?? "")
                    .split(separator: " ").compactMap { pid_t($0) }
            }
        }
        func pipes(_ pid: pid_t) -> Set<String> {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return Set(fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
                .filter { $0.hasPrefix("pipe:") })
        }
        var workers: [pid_t] = []
        while run.isRunning, workers.count < 2 { workers = children(); Thread.sleep(forTimeInterval: 0.01) }
        defer { for w in workers { kill(w, SIGKILL) } }
        XCTAssertEqual(workers.count, 2, "two workers started")
        guard workers.count == 2 else { return }
        let (a, b) = (pipes(workers[0]), pipes(workers[1]))
        XCTAssertEqual(a.count, 2, "stdin and stdout: \(a)")
        XCTAssertEqual(b.count, 2, "stdin and stdout: \(b)")
        XCTAssertTrue(a.isDisjoint(with: b), "no worker holds another's pipe: \(a) \(b)")

        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        // Each worker finishes the file it holds (30 s of audio), reads the end of its input and exits.
        var alive = workers
        for _ in 0..<600 where !alive.isEmpty {
            alive = alive.filter { kill($0, 0) == 0 && !((try? String(contentsOfFile: "/proc/\($0)/stat", encoding: .utf8)) ?? "").contains(") Z ") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertEqual(alive, [], "the workers of a killed run end")
    }

    /// Ctrl-C in a terminal reaches the run and its workers; systemd's stop sends SIGTERM. The run had died
    /// where it stood: the results not yet saved were lost, the run stayed "running", and each worker printed
    /// a crash report on finding its pipe gone; a worker killed by the Ctrl-C was charged with a crash.
    func testASignalStopsTheRunBetweenFilesKeepingWhatFinished() throws {
        try addTracks(["a.flac", "b.flac", "c.flac", "d.flac"], seconds: 6)
        try addTracks(["slow.flac"], seconds: 1)   // the smallest, so the last one started
        let log = dir + "/stderr.txt"
        for signal in [SIGINT, SIGTERM] {
            try? FileManager.default.removeItem(atPath: db)
            // Tags first, so the fault meets slow.flac in the analysis.
            XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
            let run = try CLI.start(["--db", db, "--library", library, "analyze", "--jobs", "1"],
                                    environment: ["SPINDLE_TEST_FAULT": "hang:slow"], stderr: log)
            var worker: pid_t?
            for _ in 0..<600 where worker == nil {
                Thread.sleep(forTimeInterval: 0.05)
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                worker = text.components(separatedBy: "spindle worker ").dropFirst().first
                    .flatMap { Int32($0.prefix { $0.isNumber }) }
            }
            let busy = try XCTUnwrap(worker, "the worker reached slow.flac")
            // Ctrl-C reaches the worker as well: it must live on.
            kill(busy, signal)
            Thread.sleep(forTimeInterval: 0.3)
            XCTAssertEqual(kill(busy, 0), 0, "the worker survives \(signal)")
            kill(run.processIdentifier, signal)
            run.waitUntilExit()
            let text = try String(contentsOfFile: log, encoding: .utf8)
            XCTAssertEqual(run.terminationReason, .uncaughtSignal, "it ends by the signal, as shells and systemd expect")
            XCTAssertEqual(run.terminationStatus, signal)
            XCTAssertTrue(text.contains("analyze: 4 analysed"), text)
            XCTAssertTrue(text.contains("stopped by SIG"), text)
            XCTAssertFalse(text.contains("Fatal error"), text)
            XCTAssertEqual(try results().count, 4, "what finished is saved")
            XCTAssertNil(try failures()["slow.flac"], "the file in flight is not charged")
            let runs = try XCTUnwrap(status()["runs"] as? [[String: Any]])
            XCTAssertEqual(runs.first?["status"] as? String, "interrupted")
            XCTAssertEqual(runs.first?["files_done"] as? Int, 4)
            Thread.sleep(forTimeInterval: 0.3)
            XCTAssertNotEqual(kill(busy, 0), 0, "no worker is left behind")
        }
        let rest = try CLI.run(["--db", db, "--library", library, "analyze", "--json"])
        XCTAssertEqual(rest.status, 0, rest.stderr)
        XCTAssertTrue(rest.stdout.contains("\"analysed\": 1"), rest.stdout)
    }

    /// `spindle analyze 2>&1 | head` stops reading standard error early: Foundation's FileHandle trapped on
    /// the closed pipe, so the run died mid-file (SIGILL) and stayed "running". It finishes its work now,
    /// also when its first line comes before any worker starts (the tagger's notice on a machine without
    /// its weights): that line had ended the run by SIGPIPE.
    func testARunWhoseLogReaderWentAwayFinishes() throws {
        try addTracks(["a.flac", "b.flac", "c.flac"])
        let noModels = dir + "/no-models"
        let run = Process()
        run.executableURL = URL(fileURLWithPath: CLI.executable)
        run.arguments = ["--db", db, "--library", library, "analyze", "--verbose", "--jobs", "1"]
        run.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": noModels, "SPINDLE_MODELS_DIR": ""]) { $1 }
        let closed = Pipe()
        run.standardError = closed
        run.standardOutput = FileHandle.nullDevice
        try closed.fileHandleForReading.close()
        try run.run()
        run.waitUntilExit()
        XCTAssertEqual(run.terminationReason, .exit)
        XCTAssertEqual(run.terminationStatus, 0)
        let runs = try XCTUnwrap(status()["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.first?["status"] as? String, "completed")
        XCTAssertEqual(try results().count, 3)
    }

    /// A file whose tags a run read is done with that stage, not with the run: planned again by the
    /// analysis, it waits for it. A run stopped during its analysis had said "133/133 done" with 78 files
    /// not analysed.
    func testAFileIsNotDoneUntilEveryStageThatPlannedItRecordsIt() throws {
        try addTracks(["a.flac", "b.flac"])
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        let database = try SpindleDatabase(path: db)
        let ids = try database.writer.read { try Int64.fetchAll($0, sql: "SELECT id FROM files ORDER BY path") }
        XCTAssertEqual(ids.count, 2)
        let journal = try RunJournal(database: database, kind: "analyze")
        try journal.plan(fileIds: ids)
        for id in ids { journal.record(fileId: id, stage: "tags", status: .done) }
        try journal.plan(fileIds: ids)
        journal.record(fileId: ids[0], stage: "analyze", status: .done)
        try journal.finish(status: .interrupted)
        let counts = try database.writer.read {
            try Row.fetchOne($0, sql: "SELECT files_total, files_done FROM runs WHERE id = ?", arguments: [journal.runId])
        }
        XCTAssertEqual(counts?[0] as Int?, 2)
        XCTAssertEqual(counts?[1] as Int?, 1)
    }

    /// A commit that fails (a full disk) stores none of the results it carried: the run said "2/2 done" for
    /// files whose analysis was not in the database.
    func testFilesWhoseCommitFailedAreNotCountedDone() throws {
        try addTracks(["a.flac", "b.flac", "c.flac"])
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        let database = try SpindleDatabase(path: db)
        let ids = try database.writer.read { try Int64.fetchAll($0, sql: "SELECT id FROM files ORDER BY path") }
        let journal = try RunJournal(database: database, kind: "analyze")
        try journal.plan(fileIds: ids)
        journal.record(fileId: ids[0], stage: "analyze", status: .done)
        try journal.flush()
        for id in ids.dropFirst() { journal.record(fileId: id, stage: "analyze", status: .done) }
        struct DiskFull: Error {}
        XCTAssertThrowsError(try journal.flush(extra: { _ in throw DiskFull() }))
        try journal.finish(status: .failed)
        let done = try database.writer.read {
            try Int.fetchOne($0, sql: "SELECT files_done FROM runs WHERE id = ?", arguments: [journal.runId])
        }
        XCTAssertEqual(done, 1)
    }

    /// A file's "done" is stored with its results or not at all. The journal stored its rows by itself once 2 s
    /// had passed since its last commit, ahead of the results the stage would commit next: a 3 MB disk filled
    /// by an hour-long file's results left "analyze failed: 2/2 done" with no analysis stored.
    func testAFilesOutcomeIsStoredOnlyWithItsResults() throws {
        try addTracks(["a.flac", "b.flac"])
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        let database = try SpindleDatabase(path: db)
        let ids = try database.writer.read { try Int64.fetchAll($0, sql: "SELECT id FROM files ORDER BY path") }
        let journal = try RunJournal(database: database, kind: "analyze")
        try journal.plan(fileIds: ids)
        // Past the journal's batch interval: a commit is due, and is the stage's to make.
        Thread.sleep(forTimeInterval: 2.2)
        XCTAssertTrue(journal.isDue)
        for id in ids { journal.record(fileId: id, stage: "analyze", status: .done) }
        func stored() throws -> (rows: Int, done: Int) {
            try database.writer.read { db in
                (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM run_files WHERE run_id = ?", arguments: [journal.runId]) ?? -1,
                 try Int.fetchOne(db, sql: "SELECT files_done FROM runs WHERE id = ?", arguments: [journal.runId]) ?? -1)
            }
        }
        XCTAssertEqual(try stored().rows, 0, "recorded before the stage's commit")
        struct DiskFull: Error {}
        XCTAssertThrowsError(try journal.flush(extra: { _ in throw DiskFull() }))
        try journal.finish(status: .failed)
        XCTAssertEqual(try stored().done, 0)
        XCTAssertEqual(try stored().rows, 0)
    }

    /// A file read for tags and then analysed is one file of the run: 3 good files and 1 broken one, each
    /// through both stages, counted 8 before the fix.
    func testARunCountsEachFileOnceAcrossItsStages() throws {
        try addTracks(["a.flac", "b.flac", "c.flac"])
        try Data("not audio at all".utf8).write(to: URL(fileURLWithPath: library + "/broken.flac"))
        let r = try CLI.run(["--db", db, "--library", library, "analyze", "--jobs", "1"])
        XCTAssertEqual(r.status, 3, r.stderr)
        let run = try XCTUnwrap((status()["runs"] as? [[String: Any]])?.first)
        XCTAssertEqual(run["files_total"] as? Int, 4)
        XCTAssertEqual(run["files_done"] as? Int, 3)
        XCTAssertEqual(run["files_failed"] as? Int, 1)
    }

    /// A run that stopped says why in `status`: an unmounted share (the library folder emptied) is refused
    /// with exit 2, nothing marked missing, and the reason is there the next morning.
    func testAFailedRunSaysWhyInStatus() throws {
        try addTracks(["a.flac", "b.flac"])
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze", "--jobs", "1"]).status, 0)
        try FileManager.default.moveItem(atPath: library, toPath: dir + "/unmounted")
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 2)
        let run = try XCTUnwrap((status()["runs"] as? [[String: Any]])?.first)
        XCTAssertEqual(run["status"] as? String, "failed")
        XCTAssertTrue((run["error"] as? String ?? "").contains("mount"), "\(run)")
        XCTAssertEqual(try status()["files_missing"] as? Int, 0)
        let text = try CLI.run(["--db", db, "status"]).stdout
        XCTAssertTrue(text.contains("holds no audio files"), text)
    }

    func testUnchangedNightlyDoesNoAnalysisAndReanalyzeRedoesAll() throws {
        try addTracks((1...6).map { "n\($0).flac" }, seconds: 8)
        let pipelines = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Pipelines").path
        let args = ["--db", db, "--library", library, "run", "--json"]
        let first = try CLI.run(args + [pipelines + "/nightly.toml"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("\"analysed\": 6"))
        // Unchanged: nothing read, nothing decoded (how much faster that is: scripts/bench-nightly.sh).
        let second = try CLI.run(args + [pipelines + "/nightly.toml"])
        XCTAssertTrue(second.stdout.contains("\"analysed\": 0"), second.stdout)
        XCTAssertTrue(second.stdout.contains("\"unchanged\": 6"))
        XCTAssertTrue(second.stdout.contains("\"read\": 0"), second.stdout)
        let redo = try CLI.run(args + [pipelines + "/reanalyze.toml"])
        XCTAssertTrue(redo.stdout.contains("\"analysed\": 6"), redo.stdout)
        // The tag-fix pipeline names an edits file; a missing one is a configuration error, nothing is written.
        let tagfix = try CLI.run(args + [pipelines + "/tagfix.toml"])
        XCTAssertEqual(tagfix.status, 2)
        XCTAssertTrue(tagfix.stderr.contains("edits.csv"), tagfix.stderr)
    }
}
