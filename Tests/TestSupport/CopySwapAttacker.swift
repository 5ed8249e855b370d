import Foundation

/// A hostile user of a library folder, for the tag-write race: it watches the folder with inotify and, the
/// moment a file whose name starts with `prefix` is created there, renames a symlink to `target` over it.
/// A writer that reopens its copy by name then writes `target` instead.
public final class CopySwapAttacker: @unchecked Sendable {
    private let folder: String
    private let prefix: String
    private let target: String
    private let lock = NSLock()
    private var stopping = false
    private var swapCount = 0
    private var thread: Thread?
    private let inotify: Int32

    public init(folder: String, prefix: String, target: String) throws {
        self.folder = folder
        self.prefix = prefix
        self.target = target
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0, inotify_add_watch(inotify, folder, UInt32(IN_CREATE)) >= 0 else {
            throw NSError(domain: "inotify", code: Int(errno))
        }
        let thread = Thread { [self] in watch() }
        self.thread = thread
        thread.start()
    }

    /// How many copies it has swapped so far.
    public var swaps: Int { lock.withLock { swapCount } }

    public func stop() {
        lock.withLock { stopping = true }
        while thread?.isFinished == false { usleep(1000) }
        close(inotify)
    }

    private func watch() {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var link = 0
        while !lock.withLock({ stopping }) {
            var fds = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
            guard poll(&fds, 1, 20) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard n > 0 else { continue }
            var at = 0
            while at + 16 <= n {
                let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self)) }
                let raw = buffer[(at + 16)..<min(n, at + 16 + length)].prefix { $0 != 0 }
                let name = String(decoding: raw, as: UTF8.self)
                at += 16 + length
                guard name.hasPrefix(prefix) else { continue }
                link += 1
                let staged = folder + "/.staged-link-\(link)"
                guard symlink(target, staged) == 0, rename(staged, folder + "/" + name) == 0 else { continue }
                lock.withLock { swapCount += 1 }
            }
        }
    }
}
