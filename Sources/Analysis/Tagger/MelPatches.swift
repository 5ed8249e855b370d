import Foundation

/// MusiCNN's input, made in the one decoding pass: log-compressed mel spectrograms (96 bands up to 8 kHz, frames of
/// 32 ms every 16 ms, log10(1 + 10000·power)) as the network was trained on them at 16 kHz, in patches of 187
/// frames (3 s). Frames are windowed at the stream's own rate, 32 ms long, scaled to the power a 512-point
/// transform at 16 kHz gives, so that no resampling is needed: the bands the network sees lie below 8 kHz.
///
/// At most `keep` patches come out, spread evenly over the stream whatever its length: every `stride`-th
/// consecutive patch is kept, and when twice `keep` are held the stride doubles and every other one goes, so
/// memory stays flat. A stream shorter than one patch is repeated to fill it, as the network's training padded.
final class MelPatches {
    static let frames = MusicnnNetwork.frames, bands = MusicnnNetwork.bands
    static let modelRate = 16000.0, modelWindow = 512, modelHop = 256

    let keep: Int
    private let fft: RealFFT
    private let window: [Float]
    private let length: Int
    private let filters: [(first: Int, weights: [Float])]
    private let hop: Double
    private let scale: Float
    private var buffer: [Float]
    private var consumed = 0          // samples dropped from the front of `buffer`
    private var streamSamples = 0
    private var frameIndex = 0
    private var current: [Float] = []
    private var patchIndex = 0
    private var stride = 1
    private var held: [(index: Int, values: [Float])] = []

    init(sampleRate: Int, keep: Int) {
        self.keep = max(1, keep)
        let rate = Double(sampleRate)
        length = max(16, Int((Double(Self.modelWindow) / Self.modelRate * rate).rounded()))
        var size = 1
        while size < length { size *= 2 }
        fft = RealFFT(size: size)
        window = RealFFT.hannWindow(length) + [Float](repeating: 0, count: size - length)
        hop = Double(Self.modelHop) / Self.modelRate * rate
        scale = Float(Self.modelWindow * Self.modelWindow) / Float(length * length)
        filters = Self.melFilters(bins: size / 2 + 1, binHz: rate / Double(size))
        // Frames are centred on their time, the first on 0: half a window of silence ahead, as librosa pads.
        buffer = [Float](repeating: 0, count: length / 2)
        current.reserveCapacity(Self.frames * Self.bands)
    }

    func consume(_ samples: UnsafeBufferPointer<Float>) {
        buffer.append(contentsOf: samples)
        streamSamples += samples.count
        frameWhileWindowFits(until: .max)
    }

    /// The patches kept, in stream order; the last frames, padded with silence, complete the stream.
    func finish() -> [[Float]] {
        // The last frames are centred up to the stream's end, their later half silence.
        buffer.append(contentsOf: [Float](repeating: 0, count: length))
        frameWhileWindowFits(until: streamSamples)
        if patchIndex == 0 && !current.isEmpty {
            // Shorter than a patch: repeated to fill one.
            var filled = current
            while filled.count < Self.frames * Self.bands { filled += current }
            current = Array(filled.prefix(Self.frames * Self.bands))
            completePatch()
        }
        guard held.count > keep else { return held.map(\.values) }
        return (0..<keep).map { held[$0 * held.count / keep].values }
    }

    /// Frames every window that fits in the buffer whose centre lies at or before stream sample `end`.
    private func frameWhileWindowFits(until end: Int) {
        var power = [Float](repeating: 0, count: fft.size / 2 + 1)
        while true {
            let start = Int((Double(frameIndex) * hop).rounded()) - consumed
            guard start >= 0, start + length <= buffer.count, start + consumed <= end else { break }
            buffer.withUnsafeBufferPointer { b in
                fft.loadWindowed(b.baseAddress! + start, window: window, positions: 0..<length)
            }
            power.withUnsafeMutableBufferPointer { fft.powerSpectrum(into: $0.baseAddress!) }
            for (first, weights) in filters {
                var sum: Float = 0
                for (j, w) in weights.enumerated() { sum += w * power[first + j] }
                current.append(log10(1 + 10000 * sum * scale))
            }
            frameIndex += 1
            if current.count == Self.frames * Self.bands { completePatch() }
        }
        let next = Int((Double(frameIndex) * hop).rounded()) - consumed
        if next > 0 {
            let drop = min(next, buffer.count)
            buffer.removeFirst(drop)
            consumed += drop
        }
    }

    private func completePatch() {
        if patchIndex % stride == 0 { held.append((patchIndex, current)) }
        patchIndex += 1
        current.removeAll(keepingCapacity: true)
        if held.count >= 2 * keep {
            stride *= 2
            held = held.filter { $0.index % stride == 0 }
        }
    }

    /// Slaney's mel scale and area-normalised triangles (librosa's defaults), 96 bands from 0 to 8 kHz, over
    /// the transform's bins: each band as its first bin and weights.
    static func melFilters(bins: Int, binHz: Double) -> [(first: Int, weights: [Float])] {
        func mel(_ hz: Double) -> Double { hz < 1000 ? 3 * hz / 200 : 15 + 27 * log(hz / 1000) / log(6.4) }
        func hz(_ mel: Double) -> Double { mel < 15 ? 200 * mel / 3 : 1000 * exp((mel - 15) * log(6.4) / 27) }
        let top = mel(modelRate / 2)
        let edges = (0..<(bands + 2)).map { hz(top * Double($0) / Double(bands + 1)) }
        return (0..<bands).map { m in
            let (lo, centre, hi) = (edges[m], edges[m + 1], edges[m + 2])
            let norm = 2 / (hi - lo)
            let first = max(0, Int((lo / binHz).rounded(.up)))
            var weights: [Float] = []
            var k = first
            while k < bins, Double(k) * binHz < hi {
                let f = Double(k) * binHz
                weights.append(Float(max(0, min((f - lo) / (centre - lo), (hi - f) / (hi - centre))) * norm))
                k += 1
            }
            return (first, weights)
        }
    }
}
