/// The fixed 27 bytes that start an Ogg page (RFC 3533 §6): capture pattern "OggS", version 0, flags, granule
/// position, stream serial, page sequence, checksum and the segment count; the segment table of that many
/// lacing values follows, then the body, as long as they add up to. The decoders' layout checks and the
/// scan's audio key both walk pages so.
public struct OggPageHeader: Sendable, Equatable {
    public static let size = 27

    /// Bit 0x02: the first page of a logical stream; 0x04: its last.
    public var flags: UInt8
    public var granule: UInt64
    public var serial: UInt32
    /// Lacing values in the segment table that follows.
    public var segments: Int

    /// The header at the start of `bytes`; nil when they do not begin with a version-0 Ogg page header.
    public init?(_ bytes: some Collection<UInt8>) {
        let h = Array(bytes.prefix(Self.size))
        guard h.count == Self.size, h[0] == 0x4F, h[1] == 0x67, h[2] == 0x67, h[3] == 0x53, h[4] == 0 else { return nil }
        flags = h[5]
        granule = h[6..<14].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        serial = h[14..<18].reversed().reduce(0) { $0 << 8 | UInt32($1) }
        segments = Int(h[26])
    }

    public var beginsStream: Bool { flags & 0x02 != 0 }
    public var endsStream: Bool { flags & 0x04 != 0 }

    /// The body's size: the segment table's lacing values added up.
    public static func bodySize(lacing: some Collection<UInt8>) -> Int { lacing.reduce(0) { $0 + Int($1) } }
}
