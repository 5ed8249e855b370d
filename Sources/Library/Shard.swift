/// Shard K of N (K from 1 to N) of a library: the files whose stable key, a 64-bit FNV-1a hash of the path
/// relative to the root, is K − 1 modulo N. The key depends on nothing but the relative path, so every
/// machine of a GNU parallel, Slurm or Kubernetes job agrees on the split whatever its mount point, its scan
/// order or its number of cores.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) throws {
        guard count >= 1, count <= 1_000_000, index >= 1, index <= count else {
            throw ShardError("shard \(index)/\(count): K must be between 1 and N")
        }
        self.index = index
        self.count = count
    }

    /// Parses "K/N".
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw ShardError("--shard takes K/N (for example 2/8), got '\(text)'")
        }
        try self.init(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    public func contains(_ relativePath: String) -> Bool {
        Int(Self.key(relativePath) % UInt64(count)) == index - 1
    }

    /// FNV-1a 64 over the UTF-8 bytes: stable across platforms and releases, unlike Swift's seeded Hasher.
    public static func key(_ relativePath: String) -> UInt64 {
        var hash = FNV1a()
        hash.add(relativePath.utf8)
        return hash.value
    }
}

public struct ShardError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
