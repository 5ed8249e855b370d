import Foundation
import Store

/// A run the database still calls running while no process holds its lock died without finishing: a
/// reboot, the OOM killer, `kill -9`. The next run marks it interrupted; until then `status` and `/health`
/// show it so, instead of a nightly run that seems to go on all day.
public struct RunLiveness: Sendable {
    let held: Bool?
    let lookedAt: Date

    /// Look at the lock before reading the runs: a run is inserted only by the lock's holder, so a run
    /// started before a look that found the lock free had ended by then.
    public static func look(databasePath: String) -> RunLiveness {
        RunLiveness(held: RunLock.isHeld(databasePath: databasePath), lookedAt: Date())
    }

    /// The run as it stands: running, or interrupted when it died. A second's margin covers the stored
    /// start time's rounding; when the lock cannot be looked at (another user's), the run stays as stored.
    public func settled(_ run: RunRecord) -> RunRecord {
        guard run.status == .running, held == false, run.startedAt < lookedAt.addingTimeInterval(-1) else { return run }
        var ended = run
        ended.status = .interrupted
        return ended
    }

    /// What `status` says under an interrupted run.
    public static let interruptedHint = "ended without finishing (killed, or the machine stopped); the next run picks up where it stopped"
}
