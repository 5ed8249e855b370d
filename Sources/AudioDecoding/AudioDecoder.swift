import Foundation

/// A stream of interleaved Float frames in [-1, 1] (nominally), read in chunks the caller owns.
/// One decoder per file and per thread: decoders are not shared between threads.
public protocol AudioDecoder: AnyObject {
    var format: AudioFormat { get }
    /// Reads up to `frames` interleaved frames into `buffer` (room for frames × channels floats).
    /// Returns the number of frames read; 0 means the stream has ended.
    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int
    /// Set once the stream ended because of damage (truncation, corrupt data): the frames already
    /// delivered are valid, the rest of the file could not be decoded.
    var damage: String? { get }
}

public enum AudioDecoders {
    /// The sample rates the analyzers are built for. A header claiming 1 Hz (or 10 MHz) is crafted or
    /// broken: its "duration" would be days and its filters degenerate, so it is refused up front.
    public static let supportedSampleRates = 8_000...768_000
    public static let maxChannels = 64

    static func check(_ format: AudioFormat, path: String) throws {
        guard supportedSampleRates.contains(format.sampleRate) else {
            throw DecodeError(.unsupported, path: path,
                              reason: "sample rate \(format.sampleRate) Hz is outside the supported 8–768 kHz")
        }
        guard (1...maxChannels).contains(format.channels) else {
            throw DecodeError(.unsupported, path: path, reason: "\(format.channels) channels (1–\(maxChannels) supported)")
        }
    }

    /// Opens `path` with the backend its container needs: libmpg123 for MP3 (exact length even without a
    /// Xing header), libsndfile for what it decodes exactly, FFmpeg for the rest and as a fallback.
    /// A refusal that a read error explains (the library took it for the end of the file or for bad data)
    /// is that read error, of kind `unreadable` (`FileReadCheck`).
    public static func open(path: String) throws -> any AudioDecoder {
        do { return try openByContainer(path: path) } catch let error as DecodeError where error.kind != .unreadable {
            if let failure = FileReadCheck.failure(path: path) { throw DecodeError(.unreadable, path: path, reason: failure) }
            throw error
        }
    }

    private static func openByContainer(path: String) throws -> any AudioDecoder {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw DecodeError(.unreadable, path: path, reason: "cannot stat (\(String(cString: strerror(errno))))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            // A folder reaches here only when the walk found no audio file under it (inspect expands the others):
            // it holds none, or it cannot be read, which is not the same news.
            guard (st.st_mode & S_IFMT) == S_IFDIR else { throw DecodeError(.notAudio, path: path, reason: "not a regular file") }
            guard let folder = opendir(path) else {
                throw DecodeError(.unreadable, path: path, reason: "a folder that cannot be read (\(String(cString: strerror(errno))))")
            }
            closedir(folder)
            throw DecodeError(.notAudio, path: path, reason: "a folder with no audio files under it")
        }
        let container = try ContainerSniffer.sniff(path: path)
        let size = Int64(st.st_size)
        let decoder: any AudioDecoder
        switch container {
        case .mp3:
            let mpg123 = try Mpg123Decoder(path: path, size: size)
            // Junk inside the stream: libmpg123 would stop there, and a song be analysed up to the damage, its
            // "trailing silence" where a crossfading player then fades out. FFmpeg decodes past it, as players do.
            if let scanned = mpg123.scannedTo, size - scanned > 16 << 10, MPEGFrameHeader.resume(path: path, after: scanned),
               let ffmpeg = try? FFmpegDecoder(path: path) {
                ffmpeg.damage = "corrupt data: the MPEG stream breaks off after \(scanned >> 10) KB of \(size >> 10) KB; "
                    + "decoded past the break"
                decoder = ffmpeg
            } else {
                decoder = mpg123
            }
        case .ogg where OggPages.libsndfileDecodesShort(path: path) != nil:
            // Audio on the header page, or chained streams: libsndfile would stop short, FFmpeg reads on.
            do { decoder = try FFmpegDecoder(path: path) } catch { decoder = try SndfileDecoder(path: path) }
        case .flac:
            // libFLAC itself, which libsndfile wraps: on a damaged frame (a flipped bit, a bad sector) libsndfile
            // stopped, and a 58-s song was analysed as its first 19 s, "trailing silence" where the damage was;
            // libFLAC skips the frame, as players do, and counts it. Their samples are the same otherwise.
            if let flac = try? FLACDecoder(path: path) {
                decoder = flac
            } else {
                decoder = try throughLibsndfile(path: path, container: container, size: size)
            }
        case .wav, .aiff, .au, .ogg:
            decoder = try throughLibsndfile(path: path, container: container, size: size)
        case .rifx:
            // Never FFmpeg: this build reads a big-endian WAV's 16-bit samples as little-endian, and a sine
            // comes out as full-scale noise. What libsndfile cannot open is refused.
            decoder = try SndfileDecoder(path: path)
        case .mp4:
            // Most encoders write an MP4's index after its media: one cut short cannot be opened, and FFmpeg's
            // "cannot open it as media" becomes how far the file got.
            do { decoder = try FFmpegDecoder(path: path) } catch let error as DecodeError {
                guard let cut = MP4Index.missing(path: path) else { throw error }
                throw DecodeError(error.kind, path: path, reason: cut)
            }
        case .adts, .wavpack, .ape, .asf, .caf, .matroska, .tak:
            decoder = try FFmpegDecoder(path: path)
        case .unknown:
            // TrueAudio, Musepack, AC-3 and whatever else FFmpeg recognises by probing: anything it can open
            // and decode is audio.
            let refusal = DecodeError(.notAudio, path: path, reason: "not an audio file (no known audio container signature)")
            guard FFmpegDecoder.recognises(path: path) else { throw refusal }
            do { decoder = try FFmpegDecoder(path: path) } catch { throw refusal }
        }
        try check(decoder.format, path: path)
        return decoder
    }

    /// libsndfile, or FFmpeg where libsndfile would read a file short, or what it refuses.
    private static func throughLibsndfile(path: String, container: Container, size: Int64) throws -> any AudioDecoder {
        do {
            let sndfile = try SndfileDecoder(path: path)
            // A WAV whose header says its data chunk is empty while bytes follow (a writer that never
            // went back to fill the size in): libsndfile believes the header, FFmpeg reads on.
            if sndfile.headerFrames == 0, size > 4096, let ffmpeg = try? FFmpegDecoder(path: path) {
                return ffmpeg
            }
            if sndfile.isMPEG, let ffmpeg = try? FFmpegDecoder(path: path) {
                // MPEG audio in a WAV (a broadcast MP2, an MP3 wrapped by an old Windows tool): libsndfile
                // decodes it as it does a bare MP3, stopping silently partway through VBR audio (24.9 s of a
                // 60-s file, no error), and it estimates the length of CBR audio. FFmpeg reads it whole.
                return ffmpeg
            }
            return sndfile
        } catch let sndfileError as DecodeError {
            return try afterLibsndfile(path: path, container: container, refusal: sndfileError)
        }
    }

    /// What libsndfile refused (Ogg FLAC, exotic WAV codecs, a FLAC libFLAC could not read either) through
    /// FFmpeg. When FFmpeg then refuses that FLAC as unsupported, the error gives libsndfile's reason and
    /// FFmpeg's; otherwise libsndfile's.
    private static func afterLibsndfile(path: String, container: Container, refusal: DecodeError) throws -> any AudioDecoder {
        do {
            return try FFmpegDecoder(path: path)
        } catch let ffmpegError as DecodeError where ffmpegError.kind == .unsupported && container == .flac {
            throw DecodeError(.unsupported, path: path, reason: "\(refusal.reason); \(ffmpegError.reason)")
        } catch {
            throw refusal
        }
    }
}
