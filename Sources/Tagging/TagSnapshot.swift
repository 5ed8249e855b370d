/// The tags and audio properties TagLib read from one file.
public struct TagSnapshot: Sendable, Equatable, Codable {
    /// TagLib property names (upper case) to their values; multi-valued keys keep every value in order.
    public var properties: [String: [String]]
    public var codec: String
    public var durationSeconds: Double?
    public var bitrateKbps: Int?
    public var sampleRate: Int?
    public var channels: Int?
    public var bitDepth: Int?

    public init(properties: [String: [String]], codec: String, durationSeconds: Double?, bitrateKbps: Int?,
                sampleRate: Int?, channels: Int?, bitDepth: Int?) {
        self.properties = properties
        self.codec = codec
        self.durationSeconds = durationSeconds
        self.bitrateKbps = bitrateKbps
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitDepth = bitDepth
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
