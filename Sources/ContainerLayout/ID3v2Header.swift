/// The 10-byte header that starts an ID3v2 tag (ID3v2.4 §3.1): "ID3", version, flags, and the body's size in
/// four syncsafe bytes. The decoders' sniffer and the scan's audio key both step over such tags, which taggers
/// put before MP3, AAC, FLAC and WAV streams.
public enum ID3v2Header {
    /// The tag's whole size (header, body, and footer when flagged) from its first bytes; nil when they do not
    /// start an ID3v2 tag, or its size is not syncsafe (a broken header, not to be stepped over).
    public static func tagSize(_ bytes: some Collection<UInt8>) -> Int? {
        let h = Array(bytes.prefix(10))
        guard h.count == 10, h[0] == 0x49, h[1] == 0x44, h[2] == 0x33, h[6..<10].allSatisfy({ $0 < 0x80 }) else { return nil }
        let body = h[6..<10].reduce(0) { $0 << 7 | Int($1) }
        return 10 + body + (h[5] & 0x10 != 0 ? 10 : 0)
    }
}
