import Foundation

/// One `spindle worker` child: jobs go down its standard input, replies come back on its standard output.
final class WorkerProcess {
    enum Reply {
        case line(Data)
        case died(String)       // how the process ended, e.g. "killed by signal SIGSEGV"
        case timedOut
        case stopped            // the run was asked to stop (`StopRequest`) before the reply came
    }

    let pid: pid_t
    private let input: Int32
    private let output: Int32
    private var buffer = LineBuffer()
    private var exited = false

    /// Held from making a worker's pipes until it is started: the pipes are marked close-on-exec before any
    /// other worker can be started from another thread (Glibc's Swift module has no `pipe2`).
    private static let starting = NSLock()

    init(executable: String, arguments: [String]) throws {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        // A crashing worker is reported by the supervisor; the runtime's multi-page backtrace would only
        // flood the nightly log.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in envp { free(p) } }
        Self.starting.lock()
        defer { Self.starting.unlock() }
        // Close-on-exec: a worker started later must not inherit this one's ends. Two workers holding each
        // other's input never saw its end when the run died by SIGKILL, and lived on as orphans. The child's
        // own ends are dup2'ed onto 0 and 1, which clears the flag there; the exec closes the originals.
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0 else { throw StartFailure(what: "cannot create pipes for it", code: errno) }
        guard pipe(&fromChild) == 0 else {
            let code = errno
            close(toChild[0]); close(toChild[1])
            throw StartFailure(what: "cannot create pipes for it", code: code)
        }
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard rc == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw StartFailure(what: "cannot start \(executable)", code: rc)
        }
        self.pid = pid
        input = toChild[1]
        output = fromChild[0]
        // A worker must never block the supervisor on a full pipe nor be killed by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Why a worker could not start, with what to do about it by its error number.
    struct StartFailure: Error, CustomStringConvertible {
        let what: String
        let code: Int32

        var description: String {
            let reason = "\(what): \(String(cString: strerror(code)))"
            switch code {
            case EMFILE, ENFILE: return reason + " (raise the open-files limit: `ulimit -n`, or LimitNOFILE= in a systemd unit; or lower --jobs)"
            case EAGAIN, ENOMEM: return reason + " (the system is short of processes or memory: lower --jobs)"
            default: return reason
            }
        }
    }

    deinit {
        close(input)
        close(output)
        if !exited {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Sends one line; false when the worker is gone.
    func send(_ line: Data) -> Bool {
        var data = line
        data.append(0x0A)
        return writeAll(input, data)
    }

    /// Waits up to `timeout` seconds for the next reply line, looking every quarter second whether the run
    /// was asked to stop.
    func receive(timeout: Double) -> Reply {
        let deadline = monotonicSeconds() + timeout
        while true {
            if let line = buffer.nextLine() { return .line(line) }
            if StopRequest.isRequested { return .stopped }
            let remaining = deadline - monotonicSeconds()
            if remaining <= 0 { return .timedOut }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining, 0.25) * 1000) + 1)
            if ready < 0 { if errno == EINTR { continue }; return .died(reap()) }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = read(output, &chunk, chunk.count)
            if n > 0 {
                chunk.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            } else if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) {
                return .died(reap())
            }
        }
    }

    /// Kills the worker (after a timeout) and collects it.
    func terminate() {
        guard !exited else { return }
        kill(pid, SIGKILL)
        _ = reap()
    }

    private func reap() -> String {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exited = true
        let signalNumber = status & 0x7f
        if signalNumber != 0 { return "worker killed by signal \(Self.signalName(signalNumber))" }
        return "worker exited with status \((status >> 8) & 0xff)"
    }

    static func signalName(_ n: Int32) -> String {
        let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGABRT: "SIGABRT", SIGKILL: "SIGKILL",
                                      SIGFPE: "SIGFPE", SIGILL: "SIGILL", SIGTERM: "SIGTERM", SIGTRAP: "SIGTRAP"]
        return names[n] ?? "\(n)"
    }
}
