import Foundation

/// How much a drum kit says one period is the beat: in a backbeat the kick and the snare take turns, one
/// beat apart, and the same drum comes back two beats later. So at the beat period the kick band's onsets
/// and the snare band's line up with each other one period apart (either way round) and not two periods
/// apart; at half the beat period (the eighths) they line up two periods apart, at twice it (half-time)
/// half a period apart, which is no lag the score reads. The score is the normalised cross-correlation at
/// one period minus that at two, of the two bands with their slowly varying level removed: near 0 for
/// music without such drums, about 0.3–0.6 for a plain rock beat.
enum Backbeat {
    /// The moving mean removed from each band: 1.5 s, longer than any beat.
    static let levelSeconds = 1.5

    struct Bands {
        let kick: [Float]
        let snare: [Float]
        private let kickEnergy: Double

        init?(kick: [Float], snare: [Float], framesPerSecond: Double) {
            guard kick.count == snare.count, !kick.isEmpty else { return nil }
            let width = Int(Backbeat.levelSeconds * framesPerSecond) | 1
            self.kick = Backbeat.withoutLevel(kick, width: width)
            self.snare = Backbeat.withoutLevel(snare, width: width)
            kickEnergy = VectorOps.dot(self.kick, self.kick)
            guard kickEnergy > 0, VectorOps.dot(self.snare, self.snare) > 0 else { return nil }
        }

        /// Kick and snare one `period` apart (either order), less two periods apart. What recurs every half
        /// period is taken out of the snare band first: hi-hats on every eighth sound in that band too, and
        /// when they were as loud as the snare their energy, in the normalisation, pushed a plain backbeat's
        /// score under `TempoEstimator.backbeatEvidence` (a rock beat at 85 BPM under loud hats read 170).
        func score(period: Double) -> Double {
            let snare = Backbeat.withoutRecurrence(self.snare, every: period / 2)
            let energy = (kickEnergy * VectorOps.dot(snare, snare)).squareRoot()
            guard energy > 0 else { return 0 }
            func correlation(at lag: Double) -> Double {
                let i = Int(lag.rounded(.down)), f = lag - Double(i)
                return (Backbeat.lagged(kick, snare, i) * (1 - f) + Backbeat.lagged(kick, snare, i + 1) * f) / energy
            }
            return 0.5 * (correlation(at: period) + correlation(at: -period))
                - 0.5 * (correlation(at: 2 * period) + correlation(at: -2 * period))
        }
    }

    /// Σₜ kick[t]·snare[t + lag] (lag > 0: the snare after the kick; lag < 0: before it).
    static func lagged(_ kick: [Float], _ snare: [Float], _ lag: Int) -> Double {
        let n = kick.count, shift = abs(lag)
        guard shift < n else { return 0 }
        return kick.withUnsafeBufferPointer { k in
            snare.withUnsafeBufferPointer { s in
                lag >= 0 ? VectorOps.dot(k.baseAddress!, s.baseAddress! + shift, n - shift)
                         : VectorOps.dot(k.baseAddress! + shift, s.baseAddress!, n - shift)
            }
        }
    }

    /// x less the mean of its values `lag` before and after (linearly between frames; zero past either end):
    /// a pulse that comes back every `lag` cancels, one that does not stays.
    static func withoutRecurrence(_ x: [Float], every lag: Double) -> [Float] {
        let n = x.count, whole = Int(lag.rounded(.down)), f = Float(lag - Double(whole))
        func at(_ i: Int) -> Float { i >= 0 && i < n ? x[i] : 0 }
        return (0..<n).map { t in
            let before = at(t - whole) * (1 - f) + at(t - whole - 1) * f
            let after = at(t + whole) * (1 - f) + at(t + whole + 1) * f
            return x[t] - 0.5 * (before + after)
        }
    }

    /// x minus its centred moving mean over `width` values (the window counts missing values past either
    /// end as zeros, so the ends are not left with a level of their own).
    static func withoutLevel(_ x: [Float], width: Int) -> [Float] {
        let half = width / 2, n = x.count
        var prefix = [Double](repeating: 0, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + Double(x[i]) }
        return (0..<n).map { i in
            let lo = max(0, i - half), hi = min(n, i + half + 1)
            return x[i] - Float((prefix[hi] - prefix[lo]) / Double(width))
        }
    }
}
