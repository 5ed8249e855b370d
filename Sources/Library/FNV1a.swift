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
}
