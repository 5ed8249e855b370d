import Foundation

/// How far a tempo read can be trusted, 0–1: the promise is that a read at `TempoResult.trusted` (0.5) or
/// more is right (within 4 % of the written tempo) on every kind of music measured, not just on average, and
/// below it a caller should accept `bpm_alternative` too.
///
/// It grows with how periodic the onsets are at the tempo (square root) and with the share of tracked beats
/// that keep to one grid (`onGridExponent`: a read whose beats drift off the grid half the time was the most
/// common sure but wrong read), and it is lowered when another metrical level is nearly as periodic
/// (`splitLevelCost`) and for fast reads (`fastRead`), because nearly every wrong tempo is a fast read of
/// music written at half that tempo, whose onsets are as periodic at either level.
///
/// The four constants were chosen together on the tune sets only (the development set's tune split, 40
/// score renders and 74 tracker modules of the tempo corpus, 21 Freedoom songs, 29 drum patterns): the
/// largest share of reads at 0.5 or more with every set at least 97 % right, over on-grid exponents 0.5–1.5,
/// split costs 0.8–0.95, fast-read knees 140–160 BPM and exponents 4–8. The figures per set, held-out
/// sets included, are in docs/analysis.md.
enum TempoConfidence {
    static let onGridExponent = 1.25
    static let splitLevelCost = 0.9
    static let fastRead = 140.0
    static let fastReadExponent = 4.0

    /// `periodicity`: the envelope's autocorrelation at the beat period over its lag 0, clamped to 0–1;
    /// `onGrid`: the share of tracked beats on the straight grid (0 when no beats were tracked);
    /// `splitLevels`: whether a runner-up level is reported.
    static func of(periodicity: Double, onGrid: Double, splitLevels: Bool, bpm: Double) -> Double {
        let evidence = max(0, min(1, periodicity)).squareRoot() * pow(max(0, min(1, onGrid)), onGridExponent)
        let level = splitLevels ? splitLevelCost : 1
        return evidence * level * min(1, pow(fastRead / bpm, fastReadExponent))
    }
}
