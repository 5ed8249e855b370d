/// What a decoder knows about a stream before the first sample is read.
public struct AudioFormat: Sendable, Equatable, Codable {
    public var sampleRate: Int
    public var channels: Int
    /// Short codec name: "flac", "mp3", "vorbis", "opus", "aac", "alac", "pcm", "wavpack", ...
    public var codec: String
    /// Exact frame count when the container states it (libsndfile, a scanned MP3, a known stream duration).
    public var frameCount: Int64?
    /// Bits per sample of the source for lossless/PCM codecs.
    public var bitDepth: Int?
    /// Which backend decodes the stream: "sndfile", "mpg123" or "ffmpeg".
    public var backend: String
    /// True when the source carries floating-point samples, which may hold NaN or infinities.
    public var floatSamples: Bool
    /// Each channel's speaker as a WAVE_FORMAT_EXTENSIBLE bit, when the file states its layout (`SpeakerLayout`);
    /// nil when it does not, and the channel count's usual layout applies.
    public var speakers: [UInt64]?

    public init(sampleRate: Int, channels: Int, codec: String, frameCount: Int64?, bitDepth: Int?,
                backend: String, floatSamples: Bool = false) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.codec = codec
        self.frameCount = frameCount
        self.bitDepth = bitDepth
        self.backend = backend
        self.floatSamples = floatSamples
    }

    public var durationSeconds: Double? {
        guard let frameCount, sampleRate > 0 else { return nil }
        return Double(frameCount) / Double(sampleRate)
    }
}

/// Why a file could not be opened as audio. The message names the file and the reason.
public struct DecodeError: Error, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable {
        case unreadable, empty, notAudio, unsupported, corrupt
    }
    public var kind: Kind
    public var path: String
    public var reason: String

    public init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
