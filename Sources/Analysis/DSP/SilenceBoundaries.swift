/// Where sound starts and ends, from 5 ms windows judged loud or silent in order. The lead ends at the first
/// sample that departs from the silence before it by more than the threshold, in the first loud window or the
/// window before it (an onset may cross the threshold early); the trail starts after the last such sample of
/// the last loud window or of the window after it (a decaying tail). "Departs" is measured from an offset per
/// channel: zero for plain silence, the DC level when the silence is an offset.
struct SilenceBoundaries {
    private let channels: Int
    private let threshold: Float
    private(set) var leadEnd: Int64?
    private(set) var trailStart: Int64?
    private var afterLoud = false
    /// The last window's samples and offsets while the lead is not yet found.
    private var previousWindow: [Float] = []
    private var previousStart: Int64 = 0
    private var previousOffsets: [Float]

    init(channels: Int, threshold: Float) {
        self.channels = channels
        self.threshold = threshold
        previousOffsets = [Float](repeating: 0, count: channels)
    }

    /// One window (interleaved samples) starting at frame `start`, its verdict, and the offsets to measure
    /// its samples from.
    mutating func add(_ w: UnsafeBufferPointer<Float>, start: Int64, loud: Bool, offsets: [Float]) {
        let frames = w.count / channels
        if afterLoud && !loud, let last = lastAbove(w, offsets) { trailStart = start + Int64(last) + 1 }
        if loud {
            if leadEnd == nil {
                if let first = previousWindow.withUnsafeBufferPointer({ firstAbove($0, previousOffsets) }) {
                    leadEnd = previousStart + Int64(first)
                } else {
                    leadEnd = start + Int64(firstAbove(w, previousOffsets) ?? 0)
                }
                previousWindow = []
            }
            trailStart = start + Int64((lastAbove(w, offsets) ?? (frames - 1)) + 1)
        } else if leadEnd == nil {
            previousWindow.removeAll(keepingCapacity: true)
            previousWindow.append(contentsOf: w)
            previousStart = start
        }
        if leadEnd == nil { previousOffsets = offsets }
        afterLoud = loud
    }

    private func firstAbove(_ w: UnsafeBufferPointer<Float>, _ offsets: [Float]) -> Int? {
        guard let i = w.indices.first(where: { abs(w[$0] - offsets[$0 % channels]) > threshold }) else { return nil }
        return i / channels
    }

    private func lastAbove(_ w: UnsafeBufferPointer<Float>, _ offsets: [Float]) -> Int? {
        guard let i = w.indices.last(where: { abs(w[$0] - offsets[$0 % channels]) > threshold }) else { return nil }
        return i / channels
    }
}
