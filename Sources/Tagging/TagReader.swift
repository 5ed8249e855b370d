import CTagLib
import Foundation

/// Reads tags and audio properties through the TagLib wrapper; for a format TagLib has no reader for, from
/// FFmpeg's container metadata (`ContainerTagReader`).
public enum TagReader {
    public static func read(path: String) throws -> TagSnapshot {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw TagError(path: path, reason: "cannot stat (\(String(cString: strerror(errno))))", kind: .unreachable)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw TagError(path: path, reason: "not a readable regular file") }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw TagError(path: path, reason: "cannot open for reading (\(String(cString: strerror(errno))))", kind: .unreachable)
        }
        close(fd)
        var info = spn_tag_info()
        defer { spn_tags_free(&info) }
        return try snapshot(of: &info, status: spn_tags_read(path, &info), path: path,
                            fallback: { ContainerTagReader.read(path: path) })
    }

    /// The tags of the file open as `descriptor` (left open), read through it alone: `name` is the file's name,
    /// whose extension picks the format as a path's would. A tag write reads its copy back so, never by a name
    /// that could have been swapped for a symlink meanwhile.
    public static func read(descriptor: Int32, name: String) throws -> TagSnapshot {
        var info = spn_tag_info()
        defer { spn_tags_free(&info) }
        return try snapshot(of: &info, status: spn_tags_read_fd(descriptor, name, &info), path: name,
                            fallback: { ContainerTagReader.read(path: "/proc/self/fd/\(descriptor)") })
    }

    private static func snapshot(of info: inout spn_tag_info, status: Int32, path: String,
                                 fallback: () -> TagSnapshot?) throws -> TagSnapshot {
        guard status == 1 else {
            if status == 2, let snapshot = fallback() { return snapshot }
            let reason = withUnsafeBytes(of: info.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw TagError(path: path, reason: reason, kind: status == 2 ? .unsupported : .failed)
        }
        let codec = withUnsafeBytes(of: info.codec) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var properties: [String: [String]] = [:]
        if let raw = info.properties {
            guard let pairs = TagRecords.decode(UnsafeRawBufferPointer(start: raw, count: Int(info.properties_size))) else {
                throw TagError(path: path, reason: "the tag reader returned malformed records")
            }
            for (key, value) in pairs where !key.isEmpty { properties[key, default: []].append(value) }
        }
        func positive(_ v: Int32) -> Int? { v > 0 ? Int(v) : nil }
        return TagSnapshot(properties: properties, codec: codec,
                           durationSeconds: info.length_ms > 0 ? Double(info.length_ms) / 1000 : nil,
                           bitrateKbps: positive(info.bitrate_kbps), sampleRate: positive(info.sample_rate),
                           channels: positive(info.channels), bitDepth: positive(info.bits_per_sample))
    }
}
