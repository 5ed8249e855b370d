import CSndfile
import Foundation

/// libsndfile: WAV, AIFF, AU, FLAC, Ogg Vorbis, Opus (delivered at 48 kHz).
final class SndfileDecoder: AudioDecoder {
    let format: AudioFormat
    private(set) var damage: String?
    private let file: OpaquePointer
    private var framesRead: Int64 = 0
    /// Vorbis and Opus surround arrive in their own channel order; it is put in file order (`ChannelOrder`).
    private let channelOrder: [Int]?
    /// The frame count the header states: 0 for a WAV whose writer never filled the data size in.
    let headerFrames: Int64
    /// What a WAV or AIFF header announces when the file holds less: libsndfile counts only the frames there.
    private let announcedFrames: Int64?
    /// libsndfile's "unknown" frame count (SF_COUNT_MAX): a FLAC streamed to a pipe (ffmpeg's `-f flac -`) states
    /// no total; in Ogg, no end of stream was found.
    private static let unknownLength = Int64.max
    private let path: String

    init(path: String) throws {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            let reason = String(cString: sf_strerror(nil))
            throw DecodeError(.corrupt, path: path, reason: "libsndfile cannot open it: \(reason)")
        }
        guard info.channels > 0, info.samplerate > 0, info.channels <= 64, info.samplerate <= 1_536_000 else {
            sf_close(file)
            throw DecodeError(.corrupt, path: path,
                              reason: "absurd header values (\(info.channels) channels, \(info.samplerate) Hz)")
        }
        self.file = file
        self.path = path
        // Normalise float sources as integer ones are, so clipping float WAVs read as they are.
        sf_command(file, Int32(SFC_SET_NORM_FLOAT), nil, Int32(SF_TRUE))
        let major = info.format & Int32(SF_FORMAT_TYPEMASK)
        let subtype = info.format & Int32(SF_FORMAT_SUBMASK)
        let (codec, depth, isFloat) = Self.describe(major: major, subtype: subtype)
        let holding = Int64(info.frames)
        headerFrames = holding
        announcedFrames = depth.flatMap { Self.announcedFrames(file, holding: holding, bytesPerFrame: Int(info.channels) * $0 / 8) }
        var format = AudioFormat(sampleRate: Int(info.samplerate), channels: Int(info.channels), codec: codec,
                                 frameCount: headerFrames > 0 && headerFrames != Self.unknownLength ? headerFrames : nil,
                                 bitDepth: depth,
                                 backend: "sndfile", floatSamples: isFloat)
        format.speakers = Self.speakers(file, path: path, format: format)
        self.format = format
        // Opus's header is read again only for a channel count whose order differs (not for stereo).
        let vorbisOrder = ChannelOrder.fromVorbis(channels: Int(info.channels))
        switch codec {
        case "vorbis": channelOrder = vorbisOrder
        case "opus" where vorbisOrder != nil && ChannelOrder.opusMappingFamily(path: path) == 1: channelOrder = vorbisOrder
        default: channelOrder = nil
        }
    }

    /// MPEG audio (layer I, II or III), which libsndfile also finds inside WAV files.
    var isMPEG: Bool { ["mp1", "mp2", "mp3"].contains(format.codec) }

    deinit { sf_close(file) }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let n = Int(sf_readf_float(file, buffer, sf_count_t(frames)))
        if n > 0 {
            framesRead += Int64(n)
            if let channelOrder { ChannelOrder.apply(channelOrder, to: buffer, frames: n) }
            return n
        }
        if sf_error(file) != 0 {
            damage = "decoding stopped: \(String(cString: sf_strerror(file)))"
        } else if let expected = format.frameCount, framesRead < expected {
            damage = "truncated: decoded \(framesRead) of \(expected) frames"
        } else if let announced = announcedFrames, framesRead < announced {
            damage = "truncated: decoded \(framesRead) of the \(announced) frames the header announces"
        } else if headerFrames == Self.unknownLength, format.codec == "vorbis" || format.codec == "opus",
                  !OggPages.reachesEndOfStream(path: path) {
            // In Ogg, an unknown length means libsndfile found no end of stream (the last page's position) at the
            // file's end: cut short, unless the pages reach one before junk.
            damage = "truncated: decoded \(framesRead) frames, and the Ogg stream's end is missing"
        }
        return 0
    }

    /// The frames a PCM WAV or AIFF header announces, when the file holds fewer (`holding`). libsndfile reads
    /// what is there and says so only in its log ("data : 10187776 (should be 6112624)"): a WAV cut short by a
    /// failed copy was analysed as a shorter whole, where a cut MP3, FLAC or Ogg file is reported partial.
    private static func announcedFrames(_ file: OpaquePointer, holding: Int64, bytesPerFrame: Int) -> Int64? {
        guard bytesPerFrame > 0 else { return nil }
        var log = [CChar](repeating: 0, count: 1 << 14)
        guard sf_command(file, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count)) > 0 else { return nil }
        for line in String(cString: log).split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 6, words[0] == "data" || words[0] == "SSND", words[1] == ":", words[3] == "(should",
                  words[4] == "be", let declared = Int64(words[2]), let present = Int64(words[5].dropLast()) else { continue }
            // 0xFFFFFFFF: a writer that streamed the file and never knew its length.
            guard declared < 0xFFFF_FFFF, declared - present >= bytesPerFrame else { return nil }
            // Rounded up: a cut inside a frame leaves part of one, which libsndfile does not count.
            return holding + (declared - present + Int64(bytesPerFrame) - 1) / Int64(bytesPerFrame)
        }
        return nil
    }

    /// The layout the file states: WAV's channel mask and CAF's and AIFF's layouts come through libsndfile's
    /// channel map; FLAC's mask is a comment libsndfile does not read. Vorbis and Opus state none beyond their
    /// channel count.
    private static func speakers(_ file: OpaquePointer, path: String, format: AudioFormat) -> [UInt64]? {
        guard format.channels >= 3 else { return nil }
        switch format.codec {
        case "vorbis", "opus": return nil
        case "flac": return SpeakerLayout.speakers(flacAt: path, channels: format.channels)
        default:
            var map = [Int32](repeating: 0, count: format.channels)
            let stated = map.withUnsafeMutableBytes {
                sf_command(file, Int32(SFC_GET_CHANNEL_MAP_INFO), $0.baseAddress, Int32($0.count))
            }
            return stated == SF_TRUE ? SpeakerLayout.speakers(sndfileMap: map) : nil
        }
    }

    private static func describe(major: Int32, subtype: Int32) -> (String, Int?, Bool) {
        let depth: Int?
        switch subtype {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8): depth = 8
        case Int32(SF_FORMAT_PCM_16): depth = 16
        case Int32(SF_FORMAT_PCM_24): depth = 24
        case Int32(SF_FORMAT_PCM_32): depth = 32
        case Int32(SF_FORMAT_FLOAT): depth = 32
        case Int32(SF_FORMAT_DOUBLE): depth = 64
        default: depth = nil
        }
        let isFloat = subtype == Int32(SF_FORMAT_FLOAT) || subtype == Int32(SF_FORMAT_DOUBLE)
        switch (major, subtype) {
        case (Int32(SF_FORMAT_FLAC), _): return ("flac", depth, false)
        case (_, Int32(SF_FORMAT_VORBIS)): return ("vorbis", nil, false)
        case (_, Int32(SF_FORMAT_OPUS)): return ("opus", nil, false)
        case (_, Int32(SF_FORMAT_MPEG_LAYER_III)): return ("mp3", nil, false)
        case (_, Int32(SF_FORMAT_MPEG_LAYER_II)): return ("mp2", nil, false)
        case (_, Int32(SF_FORMAT_MPEG_LAYER_I)): return ("mp1", nil, false)
        case (_, Int32(SF_FORMAT_ULAW)): return ("ulaw", nil, false)
        case (_, Int32(SF_FORMAT_ALAW)): return ("alaw", nil, false)
        case (_, Int32(SF_FORMAT_IMA_ADPCM)), (_, Int32(SF_FORMAT_MS_ADPCM)), (_, Int32(SF_FORMAT_NMS_ADPCM_16)),
             (_, Int32(SF_FORMAT_NMS_ADPCM_24)), (_, Int32(SF_FORMAT_NMS_ADPCM_32)), (_, Int32(SF_FORMAT_G721_32)),
             (_, Int32(SF_FORMAT_G723_24)), (_, Int32(SF_FORMAT_G723_40)), (_, Int32(SF_FORMAT_VOX_ADPCM)):
            return ("adpcm", nil, false)
        case (_, Int32(SF_FORMAT_GSM610)): return ("gsm", nil, false)
        case (_, Int32(SF_FORMAT_DWVW_12)), (_, Int32(SF_FORMAT_DWVW_16)), (_, Int32(SF_FORMAT_DWVW_24)), (_, Int32(SF_FORMAT_DWVW_N)):
            return ("dwvw", nil, false)
        default: return ("pcm", depth, isFloat)
        }
    }
}
