import Library
import Navidrome
import Store

/// DESIGN's exit codes for the errors a command can end with: 2 for usage and configuration (options, config
/// and pipeline files, the library root, what the user pointed at, a database a newer Spindle wrote), 4 when
/// another run holds the lock, 1 for everything else. Files that failed within a finished run give 3 through
/// the run's outcome instead.
public enum ExitStatus {
    public static func code(for error: Error) -> Int32 {
        switch error {
        case is ConfigurationError, is NavidromeError, is LibraryError, is ShardError, is DatabaseTooNew: return 2
        case is LockHeldError: return 4
        default: return 1
        }
    }
}
