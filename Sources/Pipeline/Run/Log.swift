import Foundation

/// A line for the person running Spindle, on standard error (standard output carries results).
func logLine(_ message: String) {
    FileHandle.standardError.write((message + "\n").data(using: .utf8)!)
}
