/// The shape of a stream as the analyzers see it: interleaved Float frames.
public struct StreamFormat: Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int
    /// Each channel's speaker as a WAVE_FORMAT_EXTENSIBLE bit (`SpeakerBits`), when the file states its layout;
    /// nil means the usual layout for the channel count.
    public var speakers: [UInt64]?

    public init(sampleRate: Int, channels: Int, speakers: [UInt64]? = nil) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.speakers = speakers?.count == channels ? speakers : nil
    }
}

/// One block of decoded audio, owned by the decode loop and lent to each analyzer in turn.
/// `mono` is the channel average, computed once per block when some enabled analyzer wants it.
public struct AudioBlock {
    public let interleaved: UnsafeBufferPointer<Float>
    public let mono: UnsafeBufferPointer<Float>
    public let frames: Int
    public let channels: Int
}

/// Streaming analyzer: built for one stream, `consume` any number of blocks, `finish` once.
/// Pure DSP: no files, no database, memory independent of the stream's length. Its `AnalyzerEntry` (in
/// AnalyzerRegistry) says whether it needs the mono mix and names its results.
public protocol Analyzer: AnyObject {
    associatedtype Output
    func consume(_ block: AudioBlock)
    func finish() -> Output
}

/// Where the visualiser frames go as they are made. They are the one output that grows with the stream (30
/// frames of 32 bytes a second, 1.1 GB for 10 hours at 120 × 256): given a sink, the frames analyzer keeps a
/// piece of them at a time, and its memory stays independent of the stream's length. Given none, it keeps
/// them all for its result.
public protocol FramesSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer)
}
