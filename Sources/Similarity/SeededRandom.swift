import Foundation

/// SplitMix64: small, fast and the same on every machine and release (unlike Swift's seeded `Hasher` or the
/// system generator), for what must be reproducible: k-means seeding, synthetic benchmark libraries.
public struct SeededRandom: Sendable {
    var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Standard normal (Box–Muller).
    public mutating func normal() -> Double {
        let u = max(1e-12, unit()), v = unit()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
