import Foundation

/// How two tempi sit for a beat-matched transition: equal within a few percent, or at half or double.
public struct TempoRelation: Sendable, Equatable {
    /// Percent the second is from the first, after folding by the octave that brings them closest.
    public var percent: Double
    /// −1 = the second is at half the first's tempo, +1 = at double, 0 = the same level.
    public var octave: Int

    public init(_ a: Double, _ b: Double) {
        let ratio = log2(b / a)
        octave = Int(ratio.rounded())
        percent = (exp2(ratio - Double(octave)) - 1) * 100
    }

    /// What a DJ pitch fader covers without audible change: ±4 %.
    public var isMatchable: Bool { abs(percent) <= 4 && abs(octave) <= 1 }
}
