import Foundation

public struct SilenceResult: Sendable, Equatable {
    /// Where leading silence ends (the seek-to point), seconds. nil when the whole stream is silent.
    public var leadSilenceEnd: Double?
    /// Where trailing silence begins (the crossfade trigger), seconds. nil when the whole stream is silent.
    public var trailSilenceStart: Double?
    public var isSilent: Bool
}

/// Leading and trailing silence at a threshold in dBFS. Audio is judged in 5 ms windows by their RMS
/// (loudest channel), so a noise pad whose level stays under the threshold never counts as sound even when
/// single samples poke above it; the boundary is then placed at the first (or after the last) sample above
/// the threshold in the first (last) loud window or the window next to it: sample resolution.
public final class SilenceDetector: Analyzer {
    public let needsMono = false
    private let channels: Int
    private let sampleRate: Int
    private let threshold: Float
    private let thresholdSquare: Double
    private let windowLength: Int
    private var windowFill = 0
    private var windowStart: Int64 = 0
    private var windowSquares: [Double]
    private var windowFirstLoud: Int64 = -1     // first sample index above the threshold in this window
    private var windowLastLoud: Int64 = -1
    private var previousFirstLoud: Int64 = -1   // same, for the window before
    private var previousLastLoud: Int64 = -1
    private var leadEnd: Int64?                 // sample index
    private var trailStart: Int64?              // one past the last loud sample
    private var pendingTrailFromNext = false    // the last loud window was the previous one
    private var position: Int64 = 0

    public init(format: StreamFormat, thresholdDB: Double) {
        channels = format.channels
        sampleRate = format.sampleRate
        threshold = Float(pow(10, thresholdDB / 20))
        thresholdSquare = pow(10, thresholdDB / 10)
        windowLength = max(1, format.sampleRate / 200)
        windowSquares = [Double](repeating: 0, count: format.channels)
    }

    public func consume(_ block: AudioBlock) {
        let p = block.interleaved
        var i = 0
        while i < block.frames {
            let n = min(block.frames - i, windowLength - windowFill)
            for f in i..<(i + n) {
                var loud = false
                for c in 0..<channels {
                    let x = p[f * channels + c]
                    windowSquares[c] += Double(x * x)
                    loud = loud || abs(x) > threshold
                }
                if loud {
                    let index = position + Int64(f - i)
                    if windowFirstLoud < 0 { windowFirstLoud = index }
                    windowLastLoud = index
                }
            }
            position += Int64(n)
            windowFill += n
            i += n
            if windowFill == windowLength { closeWindow() }
        }
    }

    private func closeWindow() {
        let meanSquare = windowSquares.map { $0 / Double(max(windowFill, 1)) }.max() ?? 0
        for c in 0..<channels { windowSquares[c] = 0 }
        let loud = meanSquare > thresholdSquare
        if pendingTrailFromNext {
            // The window after the last loud one: its loud samples (a decaying tail) still count.
            if windowLastLoud >= 0 && !loud { trailStart = windowLastLoud + 1 }
            pendingTrailFromNext = false
        }
        if loud {
            if leadEnd == nil {
                // Prefer an onset in the window before when it already crossed the threshold.
                leadEnd = previousFirstLoud >= 0 ? previousFirstLoud : (windowFirstLoud >= 0 ? windowFirstLoud : windowStart)
            }
            trailStart = windowLastLoud >= 0 ? windowLastLoud + 1 : position
            pendingTrailFromNext = true
        }
        previousFirstLoud = windowFirstLoud
        previousLastLoud = windowLastLoud
        windowFirstLoud = -1
        windowLastLoud = -1
        windowFill = 0
        windowStart = position
    }

    public func finish() -> SilenceResult {
        if windowFill > 0 { closeWindow() }
        guard let lead = leadEnd, let trail = trailStart else {
            return SilenceResult(leadSilenceEnd: nil, trailSilenceStart: nil, isSilent: true)
        }
        let rate = Double(sampleRate)
        return SilenceResult(leadSilenceEnd: Double(lead) / rate, trailSilenceStart: Double(trail) / rate, isSilent: false)
    }
}
