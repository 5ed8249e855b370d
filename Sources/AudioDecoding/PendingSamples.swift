/// Decoded samples a decoder holds until `read` takes them: interleaved, taken from `offset` on. Decoders
/// whose library hands over whole frames (FFmpeg, libFLAC) keep the part a caller's buffer had no room for.
struct PendingSamples {
    var samples: [Float] = []
    private(set) var offset = 0

    /// Whole frames not yet taken.
    func frames(channels: Int) -> Int { (samples.count - offset) / channels }

    /// Copies up to `wanted` of the next frames to `buffer` and moves past them; returns how many.
    mutating func take(upTo wanted: Int, channels: Int, into buffer: UnsafeMutablePointer<Float>) -> Int {
        let n = min(max(0, wanted), frames(channels: channels)), offset = self.offset
        samples.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: n * channels) }
        self.offset += n * channels
        return n
    }

    /// Empties the store, keeping its memory for the next frame.
    mutating func clear() {
        samples.removeAll(keepingCapacity: true)
        offset = 0
    }
}
