import Foundation

/// Beats by dynamic programming over an onset envelope, after Ellis (2007), "Beat tracking by dynamic
/// programming": the chain of frames that collects the most onset strength while each step stays close to
/// one period. A step of length d costs `tightness · ln(d / period)²`, so a beat may move with the music
/// (a held note, a push) but the chain cannot jump to the off-beats or skip one without paying for it.
struct BeatTracker {
    /// Ellis's value for an envelope scaled to unit standard deviation.
    static let tightness = 100.0
    /// Onset strength under this share of the strongest is silence: no chain starts there, no beat is kept there.
    static let silentShare = 0.01

    struct Beats {
        /// Frame indices of the beats, ascending.
        var frames: [Int]
        /// The fixed grid (phase in frames, 0 ≤ phase < gridPeriod) that the beats agree with best.
        var gridPhase: Double
        /// The grid's period in frames: the straight line through the beats, or the period asked for when the
        /// beats do not settle on one near it.
        var gridPeriod: Double
        /// Share of beats within an eighth of a period of that grid: 1 when the music keeps one tempo and the
        /// tracker found it, lower when the beats wander between levels or phases.
        var onGrid: Double
    }

    /// A fitted grid period may differ from the one asked for by this share at most: further, the line went
    /// through something other than the beat (a section at another tempo), and the period asked for stands.
    static let gridPeriodTolerance = 0.002

    /// Nil when the envelope is shorter than four periods or carries no onsets. The grid is settled on the
    /// beats of the first `settleFrames` (the whole envelope when nil), then fitted to ever longer stretches.
    static func track(_ envelope: [Float], period: Double, settleFrames: Int? = nil) -> Beats? {
        let n = envelope.count
        guard period >= 2, Double(n) > 4 * period else { return nil }
        // Scale to unit standard deviation so `tightness` means the same for every track.
        let mean = envelope.reduce(0, +) / Float(n)
        let variance = envelope.reduce(Float(0)) { $0 + ($1 - mean) * ($1 - mean) } / Float(n)
        guard variance > 0 else { return nil }
        let scale = 1 / variance.squareRoot()
        let local = envelope.map { Double(max(0, $0) * scale) }
        let strongest = local.max() ?? 0
        guard strongest > 0 else { return nil }

        // cumulative[t]: the best chain ending with a beat at t; previous[t]: the beat before it (-1: first).
        var cumulative = [Double](repeating: 0, count: n)
        var previous = [Int](repeating: -1, count: n)
        let shortest = max(1, Int((period / 2).rounded())), longest = Int((2 * period).rounded())
        let cost = (shortest...longest).map { d -> Double in
            let l = log(Double(d) / period)
            return -tightness * l * l
        }
        var started = false
        for t in 0..<n {
            var best = -Double.infinity, from = -1
            if t >= shortest {
                for d in shortest...min(longest, t) {
                    let s = cumulative[t - d] + cost[d - shortest]
                    if s > best { best = s; from = t - d }
                }
            }
            // Until the first real onset, a chain starts afresh rather than inherit a penalty.
            if from < 0 || (!started && local[t] < silentShare * strongest) {
                cumulative[t] = local[t] + max(0, best)
                previous[t] = -1
            } else {
                cumulative[t] = local[t] + best
                previous[t] = from
                started = true
            }
        }
        // The chain ends at the last local maximum of the cumulative score that is at least half the median
        // of those maxima (a beat right at the end may lack its successor's support).
        var peaks: [Int] = []
        for t in 1..<(n - 1) where cumulative[t] > cumulative[t - 1] && cumulative[t] >= cumulative[t + 1] { peaks.append(t) }
        guard !peaks.isEmpty else { return nil }
        let median = peaks.map { cumulative[$0] }.sorted()[peaks.count / 2]
        var t = peaks.last { cumulative[$0] >= 0.5 * median } ?? peaks.last!
        var frames: [Int] = []
        while t >= 0 {
            frames.append(t)
            t = previous[t]
        }
        frames.reverse()
        // Weak beats at either end are the chain running on through silence: trim those under half the
        // beats' RMS strength.
        let rms = (frames.reduce(0) { $0 + local[$1] * local[$1] } / Double(frames.count)).squareRoot()
        while let first = frames.first, frames.count > 2, local[first] < 0.5 * rms { frames.removeFirst() }
        while let last = frames.last, frames.count > 2, local[last] < 0.5 * rms { frames.removeLast() }
        // Inside the track too, a chain running on through silence (a gap between two movements) is no beat:
        // steps of a whole number of frames there would put beats off the line and count against the grid.
        frames.removeAll { local[$0] < silentShare * strongest }
        guard frames.count >= 2 else { return nil }
        let strengths = frames.map { local[$0] }
        let settle = settleFrames ?? n
        let early = frames.indices.filter { frames[$0] < settle }
        let settled = early.count >= 4 ? early : Array(frames.indices)
        let start = grid(settled.map { frames[$0] }, strengths: settled.map { strengths[$0] }, period: period)
        if let fitted = fittedGrid(frames, from: start, period: period, settleFrames: settle) { return fitted }
        // The grid of all the beats; when they all fall in the settling stretch (a short track), that is `start`.
        return settled.count == frames.count ? start : grid(frames, strengths: strengths, period: period)
    }

    /// The straight line `phase + k · period` through the beats, by least squares over the beats within an
    /// eighth of a period of it, grown from the settled grid over stretches twice as long each time. The
    /// autocorrelation's period is good to a few hundredths of a percent, which is a quarter of a beat
    /// after four minutes at 128 BPM; a line through the beats of the whole track keeps the grid on the beats
    /// to its end, where a crossfade lands. Nil when the line strays from `period` by more than the tolerance.
    private static func fittedGrid(_ frames: [Int], from start: Beats, period: Double, settleFrames: Int) -> Beats? {
        var phase = start.gridPhase, step = period
        var window = max(1, settleFrames)
        let last = frames.last ?? 0
        func inliers() -> (k: [Double], f: [Double]) {
            var ks: [Double] = [], fs: [Double] = []
            for f in frames where f < window {
                let k = ((Double(f) - phase) / step).rounded()
                if abs(Double(f) - (phase + k * step)) <= step / 8 { ks.append(k); fs.append(Double(f)) }
            }
            return (ks, fs)
        }
        while true {
            // Twice per stretch: the beats a first fit brings onto the line can move it again.
            for _ in 0..<2 {
                let (ks, fs) = inliers()
                guard ks.count >= 4 else { break }
                let kMean = ks.reduce(0, +) / Double(ks.count), fMean = fs.reduce(0, +) / Double(fs.count)
                var sxy = 0.0, sxx = 0.0
                for (k, f) in zip(ks, fs) { sxy += (k - kMean) * (f - fMean); sxx += (k - kMean) * (k - kMean) }
                guard sxx > 0 else { break }
                step = sxy / sxx
                phase = fMean - step * kMean
            }
            if window > last { break }
            window *= 2
        }
        guard abs(step / period - 1) <= gridPeriodTolerance else { return nil }
        let on = inliers().k.count
        var wrapped = phase.truncatingRemainder(dividingBy: step)
        if wrapped < 0 { wrapped += step }
        return Beats(frames: frames, gridPhase: wrapped, gridPeriod: step, onGrid: Double(on) / Double(frames.count))
    }

    /// The grid the strongest group of beats keeps to: of the phases within an eighth of a period of some
    /// beat's phase, the one holding the most beat strength, refined to the strength-weighted circular mean
    /// of the beats it holds; and the share of all beats on it. A circular mean over all beats lands between
    /// two grids when the chain moves half a beat (a dropped eighth, a bar of 7/8) and leaves nearly every
    /// beat off the grid, however steady each half is.
    private static func grid(_ frames: [Int], strengths: [Double], period: Double) -> Beats {
        let phases = frames.map { Double($0).truncatingRemainder(dividingBy: period) }
        func distance(_ a: Double, _ b: Double) -> Double {
            let d = abs(a - b)
            return min(d, period - d)
        }
        var best = (held: -1.0, phase: 0.0)
        for candidate in phases {
            var held = 0.0
            for (p, w) in zip(phases, strengths) where distance(p, candidate) <= period / 8 { held += w }
            if held > best.held { best = (held, candidate) }
        }
        var x = 0.0, y = 0.0
        for (p, w) in zip(phases, strengths) where distance(p, best.phase) <= period / 8 {
            let angle = 2 * Double.pi * p / period
            x += w * cos(angle)
            y += w * sin(angle)
        }
        var phase = atan2(y, x) / (2 * Double.pi) * period
        if phase < 0 { phase += period }
        let on = phases.filter { distance($0, phase) <= period / 8 }.count
        return Beats(frames: frames, gridPhase: phase, gridPeriod: period, onGrid: Double(on) / Double(frames.count))
    }
}
