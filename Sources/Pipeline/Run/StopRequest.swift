import Foundation
import Synchronization

/// Ctrl-C (SIGINT) or a service manager's SIGTERM (`systemctl stop`, `timeout` around a cron job) during a
/// journaled run. Without a handler the process died where it stood: the files of the last unsaved batch were
/// analysed for nothing, the run stayed "running" until the next one, and the workers, finding their pipe
/// gone, each printed a crash report. With it, the first signal asks the run to stop: no new file starts,
/// files in flight are abandoned (their workers killed, nothing charged to the files), what finished is saved,
/// the run is recorded as interrupted, and then the process ends by the same signal, as a shell or systemd
/// expects of it. A second signal ends it at once.
///
/// Workers ignore both signals (`WorkerMain`), so a Ctrl-C sent to the whole process group does not kill
/// them mid-file, which the supervisor would have charged to the file as a crash.
public enum StopRequest {
    private static let stored = Atomic<Int32>(0)
    private static let handlers = Handlers()

    /// Installs the handlers; later calls do nothing.
    public static func install() { _ = handlers }

    /// The signal that asked the run to stop, if one did.
    public static var received: Int32? {
        let n = stored.load(ordering: .acquiring)
        return n == 0 ? nil : n
    }

    public static var isRequested: Bool { received != nil }

    /// Ends the process by `number` with its default action, as if no handler had been installed.
    public static func end(by number: Int32) -> Never {
        signal(number, SIG_DFL)
        raise(number)
        _exit(128 + number)
    }

    static func name(_ number: Int32) -> String {
        [SIGINT: "SIGINT", SIGTERM: "SIGTERM"][number] ?? "signal \(number)"
    }

    private final class Handlers: @unchecked Sendable {
        let sources: [any DispatchSourceSignal]
        init() {
            sources = [SIGINT, SIGTERM].map { number in
                // Dispatch sees the signal only while its default action is off.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    if StopRequest.stored.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged {
                        logLine("\n\(StopRequest.name(number)): stopping between files; what is finished is saved "
                                + "(send it again to stop at once)")
                    } else {
                        StopRequest.end(by: number)
                    }
                }
                source.resume()
                return source
            }
        }
    }
}

/// A run stopped by a signal before it finished; `summary` says what it had done and saved.
public struct Interrupted: Error, CustomStringConvertible {
    public let signal: Int32
    public let summary: String
    public var description: String { summary }
}
