/// The tags and audio properties read from one file (by TagLib, or from the container by FFmpeg).
public struct TagSnapshot: Sendable, Equatable, Codable {
    /// TagLib property names (upper case) to their values; multi-valued keys keep every value in order.
    public var properties: [String: [String]]
    public var codec: String
    public var durationSeconds: Double?
    public var bitrateKbps: Int?
    public var sampleRate: Int?
    public var channels: Int?
    public var bitDepth: Int?
    /// False when the tags came from FFmpeg's container metadata (a format TagLib 1.13 cannot write).
    public var writable: Bool

    public init(properties: [String: [String]], codec: String, durationSeconds: Double?, bitrateKbps: Int?,
                sampleRate: Int?, channels: Int?, bitDepth: Int?, writable: Bool = true) {
        self.properties = properties
        self.codec = codec
        self.durationSeconds = durationSeconds
        self.bitrateKbps = bitrateKbps
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitDepth = bitDepth
        self.writable = writable
    }

    public func first(_ key: String) -> String? {
        properties[key]?.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    public func all(_ key: String) -> [String] { properties[key] ?? [] }
}

public struct TagError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// The read or write failed.
        case failed
        /// The file is no longer the version an edit was planned against: left alone, reported as a conflict.
        case conflict
        /// TagLib has no reader for this format (AC-3, RF64, ...): the file has no tags Spindle can read.
        case unsupported
        /// The file could not be stat'ed or opened (gone, no permission, on a disk not mounted): news of its
        /// place, not of its tags.
        case unreachable
    }
    public let path: String
    public let reason: String
    public let kind: Kind
    public var description: String { "\(path): \(reason)" }
    public init(path: String, reason: String, kind: Kind = .failed) {
        self.path = path
        self.reason = reason
        self.kind = kind
    }
}
