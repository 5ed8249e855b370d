import Foundation

/// Autocorrelation of a whole onset envelope, computed once at the end of a track: the tempo reads it on
/// more than one version of the envelope (all of it, its strong part), which a running sum cannot give.
enum Autocorrelation {
    /// The envelope minus its slowly varying level (an exponential mean over about `1 / rate` values), so the
    /// autocorrelation measures periodicity, not loudness. Until the mean has that many values behind it, it
    /// is their plain mean: a mean that starts from the first value and creeps up to the level leaves a ramp
    /// whose products add to every lag alike, which made steady noise look periodic.
    static func detrended(_ x: [Float], rate: Float) -> [Float] {
        var mean: Float = 0
        return x.enumerated().map { n, v in
            mean += max(rate, 1 / Float(n + 1)) * (v - mean)
            return v - mean
        }
    }

    /// Σₜ x[t]·x[t + lag] for every lag in 0...maxLag (lags past the end are 0).
    static func of(_ x: [Float], maxLag: Int) -> [Double] {
        let n = x.count
        return x.withUnsafeBufferPointer { p in
            (0...maxLag).map { lag in lag < n ? VectorOps.dot(p.baseAddress!, p.baseAddress! + lag, n - lag) : 0 }
        }
    }
}
