import Foundation

/// Tonal material in known keys, for the key and feature tests.
extension Synth {
    public enum Timbre: CaseIterable { case sine, organ, plucked }

    /// MIDI note → Hz with the tuning moved by `cents`.
    public static func hz(_ note: Int, cents: Double) -> Double { 440 * pow(2, (Double(note - 69) + cents / 100) / 12) }

    /// Chords (MIDI notes) of `beat` seconds each, with a bass an octave below each chord's first note.
    public static func chords(_ chords: [[Int]], beat: Double = 0.6, timbre: Timbre, cents: Double = 0,
                       rate: Int = 22050, repeats: Int = 2) -> [Float] {
        let perChord = Int(beat * Double(rate))
        var out = [Float](repeating: 0, count: perChord * chords.count * repeats * 2)
        for r in 0..<repeats {
            for (c, chord) in chords.enumerated() {
                let start = (r * chords.count + c) * perChord
                let notes = chord + [chord[0] - 12]
                for note in notes {
                    let f = hz(note, cents: cents)
                    let partials: [(Double, Double)] = switch timbre {
                    case .sine: [(1, 1)]
                    case .organ: [(1, 1), (2, 0.5), (3, 0.35), (4, 0.25), (5, 0.2), (6, 0.12)]
                    case .plucked: (1...10).map { (Double($0), 1 / Double($0)) }
                    }
                    for i in 0..<perChord {
                        let t = Double(i) / Double(rate)
                        let envelope = timbre == .plucked ? exp(-t * 3) : min(1, t / 0.02) * min(1, (beat - t) / 0.02)
                        var v = 0.0
                        for (k, a) in partials where f * k < Double(rate) / 2 {
                            // Plucked partials decay faster the higher they are.
                            v += a * sin(2 * Double.pi * f * k * t) * (timbre == .plucked ? exp(-t * k) : 1)
                        }
                        let s = Float(0.05 * envelope * v)
                        out[(start + i) * 2] += s
                        out[(start + i) * 2 + 1] += s
                    }
                }
            }
        }
        return out
    }

    /// I–IV–V–I (major) or i–iv–V–i (minor) in root position around middle C, then the scale.
    public static func cadence(tonic: Int, minor: Bool) -> [[Int]] {
        let base = 60 + tonic
        let third = minor ? 3 : 4
        let i = [base, base + third, base + 7]
        let iv = [base + 5, base + 5 + (minor ? 3 : 4), base + 12]
        let v = [base + 7, base + 11, base + 14]
        let scale = (minor ? [0, 2, 3, 5, 7, 8, 11, 12] : [0, 2, 4, 5, 7, 9, 11, 12]).map { [base + $0] }
        return [i, iv, v, i] + scale + [i]
    }

}
