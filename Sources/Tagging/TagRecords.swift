/// The form tag maps take across the C boundary: (key, value) pairs, each string a 4-byte little-endian
/// length and its UTF-8 bytes. Lengths rather than separator characters delimit the strings, so a value
/// holding control characters cannot forge extra keys or values (see `spindle_taglib.h`, SPN_RECORDS).
enum TagRecords {
    static func encode(_ pairs: [(key: String, value: String)]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(pairs.reduce(0) { $0 + 8 + $1.key.utf8.count + $1.value.utf8.count })
        func put(_ text: String) {
            let n = UInt32(text.utf8.count)
            out += [UInt8(n & 0xff), UInt8((n >> 8) & 0xff), UInt8((n >> 16) & 0xff), UInt8(n >> 24)]
            out += text.utf8
        }
        for pair in pairs {
            put(pair.key)
            put(pair.value)
        }
        return out
    }

    /// The pairs in `bytes`, in order; nil when a length runs past the end.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> [(key: String, value: String)]? {
        var out: [(key: String, value: String)] = []
        var at = 0
        func next() -> String? {
            guard bytes.count - at >= 4 else { return nil }
            let n = Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
            at += 4
            guard bytes.count - at >= n else { return nil }
            defer { at += n }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<(at + n)]), as: UTF8.self)
        }
        while at < bytes.count {
            guard let key = next(), let value = next() else { return nil }
            out.append((key, value))
        }
        return out
    }
}
