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
