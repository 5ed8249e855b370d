import CMpg123
import Foundation

/// MP3 through libmpg123 with a full frame scan first: libsndfile (and TagLib) trust mpg123's length
/// estimate and silently truncate VBR files that lack a Xing header; the scan gives the exact length.
final class Mpg123Decoder: AudioDecoder {
    let format: AudioFormat
    private(set) var damage: String?
    private let handle: OpaquePointer
    private var finished = false
    /// How far into the file the frame scan got, at most (nil when libmpg123 kept no frame index). Short of the
    /// end, the scan stopped at junk inside the stream (a damaged download, a bad sector) that libmpg123's
    /// resync, which gives up after 1 KiB, does not pass; or at a large tag it does not know.
    let scannedTo: Int64?
    /// The samples the frame scan found, and the encoder's count (a Xing or Info header), when it wrote one.
    private let scannedLength: Int64
    private let announced: Int64?
    private let fileSize: Int64
    private var delivered: Int64 = 0
    /// Where in the file the last frame decoded ended, about.
    private var streamEnd: Int64 = 0

    private static let initialised: Bool = { mpg123_init() == MPG123_OK.rawValue }()

    init(path: String, size: Int64) throws {
        _ = Self.initialised
        var err: Int32 = 0
        guard let handle = mpg123_new(nil, &err) else {
            throw DecodeError(.unsupported, path: path, reason: "libmpg123 unavailable (error \(err))")
        }
        self.handle = handle
        _ = spn_mpg123_param(handle, MPG123_ADD_FLAGS,
                             Int(MPG123_FORCE_FLOAT.rawValue | MPG123_QUIET.rawValue | MPG123_GAPLESS.rawValue))
        // Accept every rate and channel count, always as 32-bit float.
        mpg123_format_none(handle)
        var rates: UnsafePointer<Int>? = nil
        var count = 0
        mpg123_rates(&rates, &count)
        if let rates {
            for i in 0..<count {
                mpg123_format(handle, rates[i], Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue),
                              Int32(MPG123_ENC_FLOAT_32.rawValue))
            }
        }
        guard spn_mpg123_open(handle, path) == MPG123_OK.rawValue else {
            let reason = String(cString: mpg123_strerror(handle))
            mpg123_delete(handle)
            throw DecodeError(.corrupt, path: path, reason: "libmpg123 cannot open it: \(reason)")
        }
        guard mpg123_scan(handle) == MPG123_OK.rawValue else {
            let reason = String(cString: mpg123_strerror(handle))
            mpg123_close(handle); mpg123_delete(handle)
            throw DecodeError(.corrupt, path: path, reason: "MP3 frame scan failed: \(reason)")
        }
        var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
        guard mpg123_getformat(handle, &rate, &channels, &encoding) == MPG123_OK.rawValue, rate > 0, channels > 0 else {
            mpg123_close(handle); mpg123_delete(handle)
            throw DecodeError(.corrupt, path: path, reason: "no decodable MPEG audio frames")
        }
        // Fix the output format so a mid-stream change cannot alter the frame size.
        mpg123_format_none(handle)
        mpg123_format(handle, rate, channels, Int32(MPG123_ENC_FLOAT_32.rawValue))
        let length = spn_mpg123_length(handle)
        var step: Int64 = 0
        let lastIndexed = spn_mpg123_indexed_end(handle, &step)
        // The index holds every `step`-th frame, and no MPEG audio frame is longer than 2 KB.
        scannedTo = lastIndexed >= 0 ? lastIndexed + (step + 1) * 2048 : nil
        // The scan counts the frames that are there; the encoder's header says how many there should be.
        scannedLength = length
        announced = XingHeader.announcedSamples(path: path)
        fileSize = size
        if let announced, length > 0, !Self.holdsAll(length, of: announced) {
            damage = String(format: "truncated: the header announces %.1f s, the file holds %.1f s",
                            Double(announced) / Double(rate), Double(length) / Double(rate))
        }
        format = AudioFormat(sampleRate: rate, channels: Int(channels), codec: Self.codec(layer: spn_mpg123_layer(handle)),
                             frameCount: length > 0 ? length : nil, bitDepth: nil, backend: "mpg123")
    }

    /// Whether `samples` are all the encoder's header announced (its count has the encoder's delay and padding,
    /// which the gapless decode leaves out).
    private static func holdsAll(_ samples: Int64, of announced: Int64) -> Bool {
        Double(samples) >= Double(announced) * 0.98 - 4096
    }

    /// Whether the decoder stopped at junk after the stream's last frame, the audio whole: every frame the
    /// scan found was decoded, and the encoder's header counts no more, or (without one) at most 16 KiB of the
    /// file follow. Zero padding, a download site's text or a broken tag after the music: the file plays
    /// whole everywhere. More than that, with no header to say the music is all there, may be where the rest
    /// of it was (a download whose last pieces never came holds zeros there).
    private var stoppedAfterTheLastFrame: Bool {
        guard scannedLength > 0, delivered >= scannedLength else { return false }
        if let announced { return Self.holdsAll(delivered, of: announced) }
        return fileSize - streamEnd <= 16 << 10
    }

    /// "mp3", or "mp2" / "mp1" for the older layers (DAB and broadcast recordings, Video CD audio), which
    /// libmpg123 decodes alike.
    static func codec(layer: Int32) -> String {
        layer == 1 || layer == 2 ? "mp\(layer)" : "mp3"
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        guard !finished else { return 0 }
        let frameBytes = format.channels * MemoryLayout<Float>.size
        var total = 0
        while total < frames {
            var done = 0
            let rc = mpg123_read(handle, UnsafeMutableRawPointer(buffer + total * format.channels),
                                 (frames - total) * frameBytes, &done)
            total += done / frameBytes
            if done > 0 { streamEnd = spn_mpg123_tell_stream(handle) }
            if rc == MPG123_OK.rawValue || rc == MPG123_NEW_FORMAT.rawValue {
                if done == 0 && rc == MPG123_OK.rawValue { break }
                continue
            }
            finished = true
            delivered += Int64(total)
            if rc != MPG123_DONE.rawValue, !stoppedAfterTheLastFrame {
                damage = damage ?? "decoding stopped: \(String(cString: mpg123_strerror(handle)))"
            }
            return total
        }
        delivered += Int64(total)
        return total
    }
}
