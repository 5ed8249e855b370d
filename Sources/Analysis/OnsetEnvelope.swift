import Foundation

/// Onset strength of the mono mix, ~86 frames per second: the mix is decimated to about 11 kHz (box
/// average), framed in 256-point Hann windows with a hop of 128, grouped into log-spaced bands,
/// compressed (log(1 + C·E), so the result does not depend on playback level above the noise floor) and
/// turned into half-wave rectified spectral flux.
final class OnsetEnvelope {
    let framesPerSecond: Double
    /// Seconds from an onset frame's index·hop to the audio it responds to (half a window).
    let latency: Double
    private let decimation: Int
    private let fftSize = 256
    private let hop = 128
    private let fft: RealFFT
    private let window: [Float]
    private var ring: [Float]
    private var ringFill = 0
    private var sinceLastFrame = 0
    private var decimAccumulator: Float = 0
    private var decimCount = 0
    private var power: [Float]
    private let bandEdges: [Int]
    private var previousBands: [Float]
    private var havePrevious = false
    private let compression: Float

    init(sampleRate: Int) {
        decimation = max(1, sampleRate / 11025)
        let rate = Double(sampleRate) / Double(decimation)
        framesPerSecond = rate / Double(hop)
        latency = Double(fftSize / 2) / rate
        fft = RealFFT(size: fftSize)
        window = RealFFT.hannWindow(fftSize)
        ring = [Float](repeating: 0, count: fftSize)
        power = [Float](repeating: 0, count: fftSize / 2 + 1)
        // Log-spaced band edges (in bins) from ~40 Hz to Nyquist, at least one bin wide.
        var edges: [Int] = [1]
        let bins = fftSize / 2
        var f = 1.0
        while Int(f) < bins {
            f *= 1.25
            let e = min(bins, max(edges.last! + 1, Int(f.rounded())))
            if e > edges.last! { edges.append(e) }
        }
        bandEdges = edges
        previousBands = [Float](repeating: 0, count: edges.count - 1)
        // Full-scale sine ≈ (N/4)² in its bin; compress relative to that so −60 dB is about 1.
        compression = 1e6 / Float((fftSize / 4) * (fftSize / 4))
    }

    /// Feeds mono samples at the source rate; calls `emit` with each new onset-strength value.
    func consume(_ mono: UnsafeBufferPointer<Float>, emit: (Float) -> Void) {
        for x in mono {
            decimAccumulator += x
            decimCount += 1
            guard decimCount == decimation else { continue }
            let sample = decimAccumulator / Float(decimation)
            decimAccumulator = 0
            decimCount = 0
            ring[ringFill % fftSize] = sample
            ringFill += 1
            sinceLastFrame += 1
            if ringFill >= fftSize && sinceLastFrame >= hop {
                sinceLastFrame = 0
                emit(frame())
            }
        }
    }

    private func frame() -> Float {
        let start = ringFill % fftSize    // oldest sample
        for i in 0..<fftSize { fft.input[i] = ring[(start + i) % fftSize] * window[i] }
        power.withUnsafeMutableBufferPointer { fft.powerSpectrum(into: $0.baseAddress!) }
        var flux: Float = 0
        for b in 0..<(bandEdges.count - 1) {
            var e: Float = 0
            for k in bandEdges[b]..<bandEdges[b + 1] { e += power[k] }
            let c = log1pf(compression * e)
            if havePrevious { flux += max(0, c - previousBands[b]) }
            previousBands[b] = c
        }
        havePrevious = true
        return flux
    }
}
