import Foundation

/// A line for the person running Spindle, on standard error (standard output carries results).
func logLine(_ message: String) {
    writeStandardError(message + "\n")
}

/// Writes to standard error, and carries on when nobody reads it any more: Foundation's FileHandle traps on a
/// closed pipe, so `spindle analyze 2>&1 | head` ended the run mid-file (SIGILL, the run left "running")
/// when `head` exited. A batch job whose log reader went away finishes its work, and that includes a line
/// said before the first worker starts, while SIGPIPE still has its default action: the signal is held for
/// this write and the one it raised is taken back, so the write just fails with EPIPE.
public func writeStandardError(_ text: String) {
    var pipeOnly = sigset_t(), previous = sigset_t()
    sigemptyset(&pipeOnly)
    sigaddset(&pipeOnly, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous)
    if !writeAll(STDERR_FILENO, Data(text.utf8)), errno == EPIPE, sigismember(&previous, SIGPIPE) == 0 {
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        _ = sigtimedwait(&pipeOnly, nil, &zero)
    }
    pthread_sigmask(SIG_SETMASK, &previous, nil)
}

/// Standard output's reader went away (`spindle inspect … | head -1`): nothing more is worth computing for it.
public struct StandardOutputClosed: Error {}

/// Writes results to standard output in one write (lines from several processes sharing a pipe, as under
/// `xargs -P`, never cut into each other). Throws `StandardOutputClosed` when the reader is gone, and a
/// `PipelineError` with the reason when the output cannot take them (a full disk).
public func writeStandardOutput(_ text: String) throws {
    guard !writeAll(STDOUT_FILENO, Data(text.utf8)) else { return }
    if errno == EPIPE { throw StandardOutputClosed() }
    throw PipelineError("cannot write the results: \(String(cString: strerror(errno)))")
}
