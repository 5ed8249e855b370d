import Foundation

/// Gating-block loudness values kept as a histogram of 0.01 LU bins (−70 … +10 LUFS), each bin with
/// its count and its exact energy sum: constant memory, and gated means that stay exact but for the
/// one bin a gate cuts through.
public struct LoudnessHistogram: Sendable {
    static let floor = -70.0
    static let binsPerLU = 100.0
    static let binCount = 8000
    public init() {}

    private(set) var counts = [Int](repeating: 0, count: binCount)
    private(set) var energies = [Double](repeating: 0, count: binCount)

    static func loudness(_ energy: Double) -> Double { -0.691 + 10 * log10(energy) }
    static func energy(_ loudness: Double) -> Double { pow(10, (loudness + 0.691) / 10) }

    /// Adds a block of mean-square `energy`; blocks under the absolute gate (−70 LUFS) are dropped.
    mutating func add(energy: Double) {
        guard energy > 0 else { return }
        let l = Self.loudness(energy)
        guard l >= Self.floor else { return }
        let bin = min(Self.binCount - 1, Int((l - Self.floor) * Self.binsPerLU))
        counts[bin] += 1
        energies[bin] += energy
    }

    /// The non-empty bins as bytes (bin UInt16, count UInt32, energy Float64, little endian): what an album's
    /// loudness needs from each track, since album loudness gates all the album's blocks together.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        for b in 0..<Self.binCount where counts[b] > 0 {
            withUnsafeBytes(of: UInt16(b).littleEndian) { out += $0 }
            withUnsafeBytes(of: UInt32(clamping: counts[b]).littleEndian) { out += $0 }
            withUnsafeBytes(of: energies[b].bitPattern.littleEndian) { out += $0 }
        }
        return out
    }

    /// Adds bins encoded by `encoded()`; false when the bytes are malformed.
    @discardableResult
    public mutating func merge(encoded bytes: [UInt8]) -> Bool {
        guard bytes.count % 14 == 0 else { return false }
        var i = 0
        while i < bytes.count {
            let bin = Int(UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)
            var count: UInt32 = 0
            for k in 0..<4 { count |= UInt32(bytes[i + 2 + k]) << (8 * k) }
            var bits: UInt64 = 0
            for k in 0..<8 { bits |= UInt64(bytes[i + 6 + k]) << (8 * k) }
            guard bin < Self.binCount else { return false }
            counts[bin] += Int(count)
            energies[bin] += Double(bitPattern: bits)
            i += 14
        }
        return true
    }

    private static func bin(of loudness: Double) -> Int {
        max(0, min(binCount - 1, Int(((loudness - floor) * binsPerLU).rounded(.down))))
    }

    private func meanEnergy(from first: Int) -> (Double, Int) {
        var sum = 0.0, n = 0
        for b in first..<Self.binCount where counts[b] > 0 {
            sum += energies[b]
            n += counts[b]
        }
        return (n > 0 ? sum / Double(n) : 0, n)
    }

    /// Integrated loudness: mean energy of blocks above the relative gate (−10 LU under the mean of the
    /// blocks above the absolute gate). nil when no block passes the absolute gate.
    public func integrated(relativeGate: Double = -10) -> Double? {
        let (ungated, n) = meanEnergy(from: 0)
        guard n > 0 else { return nil }
        let gate = Self.loudness(ungated) + relativeGate
        let (gated, m) = meanEnergy(from: Self.bin(of: gate))
        return m > 0 ? Self.loudness(gated) : nil
    }

    /// Loudness range (EBU Tech 3342): spread between the 10th and 95th percentiles of short-term values
    /// above the relative gate (−20 LU), ranked as libebur128 ranks them.
    func range(relativeGate: Double = -20, low: Double = 0.10, high: Double = 0.95) -> Double? {
        let (ungated, n) = meanEnergy(from: 0)
        guard n > 0 else { return nil }
        let first = Self.bin(of: Self.loudness(ungated) + relativeGate)
        let total = counts[first...].reduce(0, +)
        guard total > 0 else { return nil }
        let lowRank = Int(Double(total - 1) * low + 0.5)
        let highRank = Int(Double(total - 1) * high + 0.5)
        func value(atRank rank: Int) -> Double {
            var seen = 0
            for b in first..<Self.binCount {
                seen += counts[b]
                if seen > rank { return Self.loudness(energies[b] / Double(counts[b])) }
            }
            return Self.floor
        }
        return max(0, value(atRank: highRank) - value(atRank: lowRank))
    }
}
