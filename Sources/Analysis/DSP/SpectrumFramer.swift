import Foundation

/// Cuts a stream into Hann-windowed frames of `size` samples every `hop` and hands each frame's power
/// spectrum (size/2 + 1 bins) to a callback: the framing shared by the analyzers that read spectra.
final class SpectrumFramer {
    let size: Int
    let hop: Int
    private let fft: RealFFT
    private let window: [Float]
    private var buffer: [Float] = []
    private var power: [Float]

    init(size: Int, hop: Int) {
        self.size = size
        self.hop = hop
        fft = RealFFT(size: size)
        window = RealFFT.hannWindow(size)
        power = [Float](repeating: 0, count: size / 2 + 1)
        buffer.reserveCapacity(size + 8192)
    }

    func consume(_ samples: UnsafeBufferPointer<Float>, frame: (UnsafeBufferPointer<Float>) -> Void) {
        buffer.append(contentsOf: samples)
        var start = 0
        while start + size <= buffer.count {
            buffer.withUnsafeBufferPointer { fft.loadWindowed($0.baseAddress! + start, window: window, positions: 0..<size) }
            power.withUnsafeMutableBufferPointer { p in
                fft.powerSpectrum(into: p.baseAddress!)
                frame(UnsafeBufferPointer(p))
            }
            start += hop
        }
        if start > 0 { buffer.removeFirst(start) }
    }
}
