@testable import Analysis
import Foundation

/// Feeds an in-memory interleaved signal through a TrackAnalyzer in decoder-sized blocks.
func analyse(_ samples: [Float], sampleRate: Int, channels: Int, speakers: [UInt64]? = nil,
             options: AnalysisOptions = AnalysisOptions(), blockFrames: Int = 4096,
             framesSink: FramesSink? = nil) -> TrackAnalysis {
    let analyzer = TrackAnalyzer(format: StreamFormat(sampleRate: sampleRate, channels: channels, speakers: speakers),
                                 options: options, framesSink: framesSink)
    samples.withUnsafeBufferPointer { p in
        var frame = 0
        let total = samples.count / channels
        while frame < total {
            let n = min(blockFrames, total - frame)
            analyzer.consume(UnsafeBufferPointer(rebasing: p[(frame * channels)..<((frame + n) * channels)]), frames: n)
            frame += n
        }
    }
    return analyzer.finish()
}

func only(_ kinds: String...) -> AnalysisOptions {
    var o = AnalysisOptions()
    o.enabled = Set(kinds)
    return o
}

/// A sine with a given peak level in dBFS on the listed channels (others silent).
func tone(frequency: Double, peakDB: Double, seconds: Double, sampleRate: Int, channels: Int,
          active: [Int]? = nil, phase: Double = 0) -> [Float] {
    let frames = Int((seconds * Double(sampleRate)).rounded())
    let amplitude = pow(10, peakDB / 20)
    let w = 2 * Double.pi * frequency / Double(sampleRate)
    let on = Set(active ?? Array(0..<channels))
    var out = [Float](repeating: 0, count: frames * channels)
    for i in 0..<frames {
        let v = Float(amplitude * sin(w * Double(i) + phase))
        for c in on { out[i * channels + c] = v }
    }
    return out
}

/// Segments of a stereo 1 kHz tone, each (peak dBFS, seconds), back to back.
func toneSequence(_ segments: [(Double, Double)], sampleRate: Int = 48000, channels: Int = 2) -> [Float] {
    // One continuous phase across segments, as the EBU files are generated.
    var out: [Float] = []
    var n = 0
    let w = 2 * Double.pi * 1000 / Double(sampleRate)
    for (db, seconds) in segments {
        let amplitude = pow(10, db / 20)
        let frames = Int((seconds * Double(sampleRate)).rounded())
        for _ in 0..<frames {
            let v = Float(amplitude * sin(w * Double(n)))
            for _ in 0..<channels { out.append(v) }
            n += 1
        }
    }
    return out
}

/// Raised-cosine fade-in and fade-out over `frames` frames.
func fade(_ s: inout [Float], channels: Int, frames: Int) {
    let total = s.count / channels
    for i in 0..<min(frames, total / 2) {
        let g = Float(0.5 - 0.5 * cos(Double.pi * Double(i) / Double(frames)))
        for c in 0..<channels {
            s[i * channels + c] *= g
            s[(total - 1 - i) * channels + c] *= g
        }
    }
}
