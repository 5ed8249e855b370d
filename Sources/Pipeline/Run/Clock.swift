import Foundation

/// Seconds on a clock that never jumps (wall-clock changes do not disturb timeouts and rates).
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
