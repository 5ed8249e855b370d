/// FNV-1a, 64 bits: a byte hash that is the same on every platform and release (unlike Swift's seeded
/// `Hasher`), for keys that are stored or compared across machines: content keys and shard keys.
public struct FNV1a {
    public private(set) var value: UInt64 = 0xcbf29ce484222325

    public init() {}

    public mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x100000001b3
        }
    }

    /// The same step over little-endian 64-bit words (the tail bytewise): a chain of multiplications an
    /// eighth as long, for keys that hash whole 64 KiB windows and are not stored under the bytewise hash
    /// (audio keys). Content keys keep `add`: their stored values must not change.
    public mutating func addWords(_ bytes: UnsafeRawBufferPointer) {
        let words = bytes.count / 8
        for i in 0..<words {
            value ^= UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self))
            value = value &* 0x100000001b3
        }
        add(UnsafeRawBufferPointer(rebasing: bytes[(8 * words)...]))
    }
}
