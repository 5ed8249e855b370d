import Foundation

/// Visualiser frames: `bands` log-spaced band levels per frame, one byte each, `fps` frames per second.
public struct VisualFrames: Sendable, Equatable, Codable {
    public var fps: Double
    public var bands: Int
    public var count: Int
    /// count × bands bytes, frame after frame; empty when they went to a `FramesSink` instead. `Data`, as the
    /// results and the database hold them: a long recording's frames are never copied on their way.
    public var data: Data
    /// Mean level (0...1) of the low, mid and high thirds of the bands over the whole track.
    public var profile: [Double]

    public init(fps: Double, bands: Int, data: Data) {
        let count = bands > 0 ? data.count / bands : 0
        var sums = Self.ThirdSums(bands: bands)
        data.withUnsafeBytes { bytes in
            for i in 0..<count { sums.add(UnsafeRawBufferPointer(rebasing: bytes[(i * bands)..<((i + 1) * bands)])) }
        }
        self.init(fps: fps, bands: bands, count: count, data: data, profile: sums.profile(frames: count))
    }

    init(fps: Double, bands: Int, count: Int, data: Data, profile: [Double]) {
        self.fps = fps
        self.bands = bands
        self.count = count
        self.data = data
        self.profile = profile
    }

    /// Whether the frames themselves are here (not in a sink).
    public var isWhole: Bool { data.count == count * bands }

    /// Sums of the levels of each third of the bands, frame by frame: the profile, whether the frames are kept
    /// or go to a sink as they are made.
    struct ThirdSums {
        let bands: Int
        var sums = [Double](repeating: 0, count: 3)

        init(bands: Int) { self.bands = bands }

        mutating func add(_ frame: UnsafeRawBufferPointer) {
            guard bands >= 3 else { return }
            for b in 0..<bands { sums[min(2, b * 3 / bands)] += Double(frame[b]) }
        }

        func profile(frames count: Int) -> [Double] {
            guard count > 0, bands >= 3 else { return [] }
            let perThird = (0..<3).map { t in Double((0..<bands).filter { min(2, $0 * 3 / bands) == t }.count) }
            return (0..<3).map { sums[$0] / (perThird[$0] * Double(count) * 255) }
        }
    }

    /// Frame `i` as floats 0...1.
    public func frame(_ i: Int) -> [Double] {
        data[(data.startIndex + i * bands)..<(data.startIndex + (i + 1) * bands)].map { Double($0) / 255 }
    }
}

/// Spectrum frames for a player's visualiser: a Hann-windowed FFT (1024 points by default) of the mono mix
/// every 1/fps seconds, band powers over log-spaced bands (30 Hz–16 kHz), in dB relative to a full-scale
/// sine, mapped from [floor, 0] dB onto 0...255.
public final class SpectrumFrameAnalyzer: Analyzer {
    private let fft: RealFFT
    private let window: [Float]
    private let size: Int
    private let sampleRate: Int
    private let fps: Double
    private let bandBins: [(lo: Int, hi: Int, weightLo: Float)]
    private let floorDB: Float
    private let reference: Float
    /// The last `size` samples before the current block, so a window may straddle two blocks.
    private var tail: [Float]
    private var consumed: Int64 = 0
    private var nextFrame = 0
    private var nextEnd: Int64
    private var power: [Float]
    private var output = Data()
    /// One frame's levels, appended to `output` whole.
    private var levels: [UInt8]
    /// Where `output` goes a piece at a time, when there is one.
    private let sink: FramesSink?
    private var thirds: VisualFrames.ThirdSums

    /// What `output` holds at most before it goes to the sink.
    static let piece = 1 << 20

    public init(format: StreamFormat, options: AnalysisOptions, sink: FramesSink? = nil) {
        self.sink = sink
        size = options.frameFFTSize
        sampleRate = format.sampleRate
        fps = options.framesPerSecond
        fft = RealFFT(size: size)
        window = RealFFT.hannWindow(size)
        tail = [Float](repeating: 0, count: size)
        nextEnd = Int64(size)
        power = [Float](repeating: 0, count: size / 2 + 1)
        floorDB = Float(options.frameFloorDB)
        reference = RealFFT.fullScaleSinePower(size: size)
        let binHz = Double(format.sampleRate) / Double(size)
        let high = min(options.frameHighHz, Double(format.sampleRate) / 2 * 0.999)
        let low = min(options.frameLowHz, high / 2)
        let bands = max(1, options.frameBands)
        var bins: [(Int, Int, Float)] = []
        for b in 0..<bands {
            let f0 = low * pow(high / low, Double(b) / Double(bands))
            let f1 = low * pow(high / low, Double(b + 1) / Double(bands))
            let lo = Int((f0 / binHz).rounded(.up)), hi = Int((f1 / binHz).rounded(.down))
            if hi >= lo {
                bins.append((lo, hi, 0))
            } else {
                // Narrower than a bin: interpolate between the two bins around the band's centre.
                let centre = sqrt(f0 * f1) / binHz
                let below = Int(centre)
                bins.append((below, below + 1, Float(1 - (centre - Double(below)))))
            }
        }
        bandBins = bins
        levels = [UInt8](repeating: 0, count: bins.count)
        thirds = VisualFrames.ThirdSums(bands: bins.count)
    }

    private func frameStart(_ i: Int) -> Int64 { Int64((Double(i) * Double(sampleRate) / fps).rounded()) }

    public func consume(_ block: AudioBlock) {
        let n = block.frames
        let mono = block.mono
        // Only the samples under a window are read; with a hop longer than the window most are skipped.
        while nextEnd <= consumed + Int64(n) {
            let first = Int(nextEnd - Int64(size) - consumed)     // negative: starts in the tail
            tail.withUnsafeBufferPointer { t in
                window.withUnsafeBufferPointer { w in
                    // The first `inTail` positions fall before this block: they read the tail (zeros before
                    // it); the rest read the block.
                    let input = fft.input
                    let inTail = min(size, max(0, -first))
                    for i in 0..<inTail {
                        let j = first + i + size
                        input[i] = (j >= 0 ? t[j] : 0) * w[i]
                    }
                    fft.loadWindowed(mono.baseAddress! + (first + inTail), window: window, positions: inTail..<size)
                }
            }
            emitFrame()
        }
        if n >= size {
            tail.withUnsafeMutableBufferPointer { t in
                t.baseAddress!.update(from: mono.baseAddress! + (n - size), count: size)
            }
        } else {
            tail.removeFirst(n)
            tail.append(contentsOf: mono[0..<n])
        }
        consumed += Int64(n)
    }

    private func emitFrame() {
        power.withUnsafeMutableBufferPointer { power in
            fft.powerSpectrum(into: power.baseAddress!)
            let last = power.count - 1
            for (i, band) in bandBins.enumerated() {
                var p: Float
                if band.weightLo > 0 {
                    p = power[band.lo] * band.weightLo + power[min(band.hi, last)] * (1 - band.weightLo)
                } else {
                    p = 0
                    for k in band.lo...band.hi where power[k] > p { p = power[k] }
                }
                let db = 10 * log10f(max(p / reference, 1e-12))
                let level = max(0, min(255, (db - floorDB) / -floorDB * 255))
                // Rounds half away from zero as `rounded()` does (level ≥ 0), without its libm call.
                levels[i] = UInt8(level + 0.5)
            }
        }
        levels.withUnsafeBytes { thirds.add($0) }
        levels.withUnsafeBufferPointer { output.append($0) }
        if let sink, output.count >= Self.piece { flush(to: sink) }
        nextFrame += 1
        nextEnd = frameStart(nextFrame) + Int64(size)
    }

    public func finish() -> VisualFrames {
        // Frames whose window runs past the end are computed zero-padded, so every 1/fps step has one.
        while frameStart(nextFrame) < consumed {
            let first = Int(nextEnd - Int64(size) - consumed)   // into the tail, which holds the last samples
            for i in 0..<size {
                let j = first + i
                fft.input[i] = j < 0 && j + size >= 0 ? tail[j + size] * window[i] : 0
            }
            emitFrame()
        }
        if let sink { flush(to: sink) }
        return VisualFrames(fps: fps, bands: bandBins.count, count: nextFrame, data: output,
                            profile: thirds.profile(frames: nextFrame))
    }

    private func flush(to sink: FramesSink) {
        output.withUnsafeBytes { sink.write($0) }
        output.removeAll(keepingCapacity: true)
    }
}

extension SpectrumFrameAnalyzer {
    /// `vis_frames` is the frames themselves (count × bands bytes); the spectrum profile (mean level of the
    /// low, mid and high thirds) is kept beside them for genre building.
    public static let entry = AnalyzerEntry(
        name: "frames", version: 1, needsMono: true,
        outputs: ["frames_fps", "frames_bands", "frames_count", "spectrum_low", "spectrum_mid", "spectrum_high", "vis_frames"],
        make: { format, options, sink in SpectrumFrameAnalyzer(format: format, options: options, sink: sink) },
        values: { frames in
            let profile = frames.profile
            return ["frames_fps": .number(frames.fps), "frames_bands": .integer(frames.bands), "frames_count": .integer(frames.count),
                    "spectrum_low": .number(profile.count == 3 ? profile[0] : nil),
                    "spectrum_mid": .number(profile.count == 3 ? profile[1] : nil),
                    "spectrum_high": .number(profile.count == 3 ? profile[2] : nil),
                    "vis_frames": frames.isWhole ? .bytes(frames.data) : nil]
        })
}

extension TrackAnalysis {
    /// The visualiser frames, when the frames analyzer ran.
    public var frames: VisualFrames? {
        guard versions[SpectrumFrameAnalyzer.entry.name] != nil, let fps = values["frames_fps"]?.double,
              let bands = values["frames_bands"]?.int, let data = values["vis_frames"]?.data else { return nil }
        return VisualFrames(fps: fps, bands: bands, data: data)
    }
}
