import Analysis
import Foundation

/// What a track's tempo lets its users assume. A tempo under `TempoResult.trusted` confidence is now and then
/// another metrical level (an 85 BPM track read at 170): 7 of the development set's 37 renders under it, 6 of
/// them at the level stored as the alternative. Rules count such a track less where the other reading would
/// break them, and explanations do not quote the number as a fact. Mixes still beat-match on `bpm` alone:
/// under `trusted` it is right four times in five and its alternative one time in five, and on the
/// development set's mixes every transition matched through an alternative was wrong (20 of 20).
extension TrackInput {
    /// Whether `bpm` can be taken as the tempo. A tempo given without a confidence (by a caller, not the
    /// analysis, which always stores one) is taken as given.
    public var tempoIsTrusted: Bool {
        guard let bpm, bpm > 0 else { return false }
        return bpmConfidence.map { $0 >= TempoResult.trusted } ?? true
    }

    /// The tempi the analysis leaves open, `bpm` first: its alternative joins it when `bpm` is not trusted.
    public var plausibleTempi: [Double] {
        guard let bpm, bpm > 0 else { return [] }
        guard !tempoIsTrusted, let other = bpmAlternative, other > 0, other != bpm else { return [bpm] }
        return [bpm, other]
    }
}
