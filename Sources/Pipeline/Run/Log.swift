import Foundation

/// A line for the person running Spindle, on standard error (standard output carries results).
func logLine(_ message: String) {
    writeStandardError(message + "\n")
}

/// Writes to standard error, and carries on when nobody reads it any more: Foundation's FileHandle traps on a
/// closed pipe, so `spindle analyze 2>&1 | head` ended the run mid-file (SIGILL, the run left "running")
/// when `head` exited. A batch job whose log reader went away finishes its work.
public func writeStandardError(_ text: String) {
    _ = writeAll(STDERR_FILENO, Data(text.utf8))
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
