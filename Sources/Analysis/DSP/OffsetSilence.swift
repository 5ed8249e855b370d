/// Silence judged about a DC offset: a window that is loud plainly is silent when its level about the offset
/// is under the threshold. The offset is each channel's mean over the 100 ms of windows before the window, or
/// over the 100 ms after it: the silence before an onset sets the first, the silence after a last note the
/// second, so neither is taken from the music next to it (music's window means scatter by more than the
/// threshold, and 100 ms of them had put the end of a track 100 ms late). Judging a window needs the windows
/// after it, so windows wait in a ring, samples and all, until 100 ms more have arrived.
struct OffsetSilence {
    private let channels: Int
    private let thresholdSquare: Float
    private let span: Int                     // windows on each side of the one judged
    private let capacity: Int                 // 2 × span + 1
    private let windowSamples: Int            // samples of a full window (all channels)
    private var samples: [Float]              // capacity windows of interleaved samples
    private var means: [Float]                // capacity × channels
    private var meanSquares: [Float]          // capacity × channels
    private var starts: [Int64]
    private var counts: [Int]                 // samples held per slot (the last window may be short)
    private var loud: [Bool]                  // the plain verdict
    private var added = 0                     // windows added so far
    private var judged = 0                    // windows judged so far
    private var offsets: [Float]
    /// Per channel, the sums of the window means before the next window to judge (up to `span` of them) and
    /// after it (up to the last added): slid one window at a time, in Double so hours of sliding do not drift.
    private var pastSums: [Double]
    private var futureSums: [Double]
    private(set) var boundaries: SilenceBoundaries

    init(channels: Int, threshold: Float, windowFrames: Int, span: Int = 20) {
        self.channels = channels
        thresholdSquare = threshold * threshold
        self.span = span
        capacity = 2 * span + 1
        windowSamples = windowFrames * channels
        samples = [Float](repeating: 0, count: capacity * windowSamples)
        means = [Float](repeating: 0, count: capacity * channels)
        meanSquares = means
        starts = [Int64](repeating: 0, count: capacity)
        counts = [Int](repeating: 0, count: capacity)
        loud = [Bool](repeating: false, count: capacity)
        offsets = [Float](repeating: 0, count: channels)
        pastSums = [Double](repeating: 0, count: channels)
        futureSums = pastSums
        boundaries = SilenceBoundaries(channels: channels, threshold: threshold)
    }

    /// One window: its samples, per-channel sums and sums of squares, first frame, and plain verdict.
    mutating func add(_ w: UnsafeBufferPointer<Float>, sums: [Float], squares: [Float], start: Int64, plainlyLoud: Bool) {
        let slot = added % capacity
        let n = Float(w.count / channels)
        samples.withUnsafeMutableBufferPointer { ring in
            (ring.baseAddress! + slot * windowSamples).update(from: w.baseAddress!, count: w.count)
        }
        for c in 0..<channels {
            means[slot * channels + c] = sums[c] / n
            meanSquares[slot * channels + c] = squares[c] / n
        }
        starts[slot] = start
        counts[slot] = w.count
        loud[slot] = plainlyLoud
        if added > judged { for c in 0..<channels { futureSums[c] += Double(means[slot * channels + c]) } }
        added += 1
        if added - judged > span { judgeNext() }
    }

    /// Judges the windows still waiting, with what follows them.
    mutating func finish() {
        while judged < added { judgeNext() }
    }

    /// The window's loudest channel's mean square about the average of `count` window means whose sums are
    /// `sums`; the average is left in `offsets`.
    private mutating func levelAbout(_ sums: [Double], count: Int, slot: Int) -> Float {
        var loudest: Float = 0
        for c in 0..<channels {
            let d = Float(sums[c] / Double(count))
            offsets[c] = d
            let mean = means[slot * channels + c]
            loudest = max(loudest, meanSquares[slot * channels + c] - 2 * d * mean + d * d)
        }
        return loudest
    }

    private mutating func judgeNext() {
        let index = judged
        let slot = index % capacity
        // Past first (known for every window but the first), then future; the nearer to silence decides. A
        // window loud about both keeps the future's offset: its last sample above it is where the trail starts.
        let past = min(index, span), future = added - 1 - index
        var isLoud = loud[slot]
        if isLoud {
            if past > 0 { isLoud = levelAbout(pastSums, count: past, slot: slot) > thresholdSquare }
            if isLoud, future > 0 { isLoud = levelAbout(futureSums, count: future, slot: slot) > thresholdSquare }
        } else {
            for c in 0..<channels { offsets[c] = 0 }
        }
        let count = counts[slot]
        let base = slot * windowSamples
        samples.withUnsafeBufferPointer { ring in
            boundaries.add(UnsafeBufferPointer(rebasing: ring[base..<(base + count)]), start: starts[slot], loud: isLoud,
                           offsets: offsets)
        }
        // Slide: this window joins the past (the oldest leaves it) and the next one leaves the future.
        for c in 0..<channels {
            pastSums[c] += Double(means[slot * channels + c])
            if index >= span { pastSums[c] -= Double(means[((index - span) % capacity) * channels + c]) }
            if index + 1 < added { futureSums[c] -= Double(means[((index + 1) % capacity) * channels + c]) }
        }
        judged += 1
    }
}
