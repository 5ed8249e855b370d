import CFFmpeg
import Foundation

/// Everything FFmpeg allocates for one file, freed when this goes away. It is its own object because a
/// Swift initializer that throws before every stored property is set never runs `deinit`: held in the
/// decoder, a file refused halfway through opening would leak its context, packet and file descriptor.
final class FFmpegHandles {
    var formatContext: UnsafeMutablePointer<AVFormatContext>?
    var codecContext: UnsafeMutablePointer<AVCodecContext>?
    var resampler: OpaquePointer?
    var packet: UnsafeMutablePointer<AVPacket>?
    var frame: UnsafeMutablePointer<AVFrame>?

    deinit {
        av_packet_free(&packet)
        av_frame_free(&frame)
        swr_free(&resampler)
        avcodec_free_context(&codecContext)
        avformat_close_input(&formatContext)
    }
}

/// FFmpeg for what libsndfile cannot open: M4A (AAC, ALAC), WavPack, APE, WMA, Ogg FLAC, CAF, Matroska,
/// TrueAudio, Musepack, AC-3, and any other container FFmpeg recognises; and for the Ogg files libsndfile
/// would decode short (`OggPages`). Output is interleaved Float at the first frame's rate and channel count:
/// converted only, except where a later part of the stream (a chained Ogg's next link) has other parameters
/// and is resampled or remixed to those.
final class FFmpegDecoder: AudioDecoder {
    let format: AudioFormat
    /// Set beforehand by a caller that knows of damage this decoder passes over (junk inside an MP3 stream).
    var damage: String?

    private let handles = FFmpegHandles()
    private var formatContext: UnsafeMutablePointer<AVFormatContext>? { handles.formatContext }
    private var codecContext: UnsafeMutablePointer<AVCodecContext>? { handles.codecContext }
    private var resampler: OpaquePointer? { handles.resampler }
    private let streamIndex: Int32
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private var pending = PendingSamples()
    private var framesDelivered: Int64 = 0
    private var draining = false
    private var finished = false
    private var corruptPackets = 0
    /// What the resampler is set up to read: the first frame's rate, channels and sample format, until a
    /// chained stream's next link brings others.
    private var input: FrameInput
    private var drainedAtEnd = false
    /// The container's stated length; AAC decoders emit encoder padding past it, which is cut off here.
    private let frameLimit: Int64?

    private static let quiet: Void = { av_log_set_level(AV_LOG_QUIET) }()

    /// Whether FFmpeg recognises the container from the file's first 64 KiB by its content alone (no file
    /// name, so no extension guess), with more confidence than an extension match would give. Files of no
    /// container Spindle knows are handed to FFmpeg only then: random bytes are probed, not decoded.
    static func recognises(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        guard !head.isEmpty else { return false }
        var buffer = [UInt8](head) + [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
        var score: Int32 = 0
        let format = buffer.withUnsafeMutableBufferPointer { b -> UnsafePointer<AVInputFormat>? in
            var probe = AVProbeData(filename: nil, buf: b.baseAddress, buf_size: Int32(head.count), mime_type: nil)
            return av_probe_input_format3(&probe, 1, &score)
        }
        return format != nil && score > AVPROBE_SCORE_EXTENSION
    }

    init(path: String) throws {
        _ = Self.quiet
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        guard avformat_open_input(&ctx, path, nil, nil) == 0, let ctx else {
            throw DecodeError(.corrupt, path: path, reason: "FFmpeg cannot open it as media")
        }
        handles.formatContext = ctx
        handles.packet = av_packet_alloc()
        handles.frame = av_frame_alloc()
        guard let packet = handles.packet, let frame = handles.frame else {
            throw DecodeError(.unsupported, path: path, reason: "out of memory")
        }
        self.packet = packet
        self.frame = frame
        func fail(_ kind: DecodeError.Kind, _ reason: String) -> DecodeError {
            return DecodeError(kind, path: path, reason: reason)
        }
        guard avformat_find_stream_info(ctx, nil) >= 0 else {
            throw fail(.corrupt, "FFmpeg found no stream information")
        }
        var codec: UnsafePointer<AVCodec>? = nil
        let index = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        guard index >= 0, let codec, let stream = ctx.pointee.streams[Int(index)] else {
            throw fail(.notAudio, "no audio stream")
        }
        streamIndex = index
        guard let codecContext = avcodec_alloc_context3(codec) else { throw fail(.unsupported, "out of memory") }
        handles.codecContext = codecContext
        guard avcodec_parameters_to_context(codecContext, stream.pointee.codecpar) >= 0,
              avcodec_open2(codecContext, codec, nil) >= 0 else {
            throw fail(.unsupported, "FFmpeg cannot decode codec \(String(cString: codec.pointee.name))")
        }
        // FLAC 1.4's 32-bit samples: libavcodec before 60 (FFmpeg 6.0) opens the stream and then decodes none
        // of it, which would read as a file truncated at its start.
        let libavcodecMajor = Int(avcodec_version() >> 16)
        if codecContext.pointee.codec_id == AV_CODEC_ID_FLAC, codecContext.pointee.bits_per_raw_sample > 24, libavcodecMajor < 60 {
            throw fail(.unsupported, "32-bit FLAC, which this FFmpeg (libavcodec \(libavcodecMajor)) cannot decode: FFmpeg 6.0 can")
        }
        let channels = Int(codecContext.pointee.ch_layout.nb_channels)
        let sampleRate = Int(codecContext.pointee.sample_rate)
        let first = FrameInput(rate: Int32(sampleRate), channels: Int32(channels), format: codecContext.pointee.sample_fmt.rawValue)
        guard first.isPlausible else {
            throw fail(.corrupt, "absurd stream parameters (\(channels) channels, \(sampleRate) Hz)")
        }
        // Same rate, same channel count, default order both sides: format conversion only.
        guard let swr = Self.resampler(from: first, toRate: sampleRate, channels: channels) else {
            throw fail(.unsupported, "cannot convert its sample format")
        }
        handles.resampler = swr
        input = first

        var frames: Int64? = nil
        let timeBase = stream.pointee.time_base
        // A length FFmpeg estimated from the file's size and bitrate is no length: it shrinks with a truncated
        // file (so it never reveals one) and grows with its tags (a WMA whose header grew by 40 KB read as
        // 21.6 s long for 20.0 s of audio, and so as truncated).
        if ctx.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE {
            frames = nil
        } else if stream.pointee.duration != SPN_AV_NOPTS_VALUE, stream.pointee.duration > 0, timeBase.den > 0 {
            frames = av_rescale_q(stream.pointee.duration, timeBase, AVRational(num: 1, den: Int32(sampleRate)))
        } else if ctx.pointee.duration != SPN_AV_NOPTS_VALUE, ctx.pointee.duration > 0 {
            frames = ctx.pointee.duration * Int64(sampleRate) / Int64(AV_TIME_BASE)
        }
        let codecName = Self.codecName(codecContext.pointee.codec_id, fallback: String(cString: codec.pointee.name))
        // Only MP4-family containers state an exact, edit-list-trimmed length worth cutting at.
        let containerName = String(cString: ctx.pointee.iformat.pointee.name)
        frameLimit = containerName.contains("mp4") ? frames : nil
        let depth = Int(codecContext.pointee.bits_per_raw_sample)
        let sampleFormat = codecContext.pointee.sample_fmt
        let isFloat = sampleFormat == AV_SAMPLE_FMT_FLT || sampleFormat == AV_SAMPLE_FMT_FLTP
            || sampleFormat == AV_SAMPLE_FMT_DBL || sampleFormat == AV_SAMPLE_FMT_DBLP
        let lossy: Set<String> = ["aac", "mp3", "mp2", "mp1", "vorbis", "opus", "wma"]
        var format = AudioFormat(sampleRate: sampleRate, channels: channels, codec: codecName, frameCount: frames,
                                 bitDepth: depth > 0 && !lossy.contains(codecName) ? depth : nil,
                                 backend: "ffmpeg", floatSamples: isFloat && !lossy.contains(codecName))
        format.speakers = Self.speakers(&codecContext.pointee.ch_layout)
        self.format = format
    }

    /// The decoder's channel layout as speaker bits (FFmpeg's AV_CH_* are WAVE_FORMAT_EXTENSIBLE's), which the
    /// resampler keeps in order; nil when a channel has no speaker FFmpeg can name.
    private static func speakers(_ layout: UnsafePointer<AVChannelLayout>) -> [UInt64]? {
        var speakers: [UInt64] = []
        for index in 0..<layout.pointee.nb_channels {
            let channel = av_channel_layout_channel_from_index(layout, UInt32(index)).rawValue
            guard (0..<64).contains(channel) else { return nil }
            speakers.append(UInt64(1) << UInt64(channel))
        }
        return speakers
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let channels = format.channels
        var written = 0
        while written < frames {
            if pending.frames(channels: channels) > 0 {
                // The container's stated length ends the stream (an AAC decoder's padding past it is cut).
                let allowed = frameLimit.map { Int(min(Int64(frames - written), max(0, $0 - framesDelivered))) } ?? frames - written
                let n = pending.take(upTo: allowed, channels: channels, into: buffer + written * channels)
                if n == 0 { finished = true; pending.clear(); break }
                written += n
                framesDelivered += Int64(n)
                continue
            }
            if finished || !decodeNextFrame() { break }
        }
        return written
    }

    /// Fills `pending` with the next decoded frame; false at the end of the stream.
    private func decodeNextFrame() -> Bool {
        guard let codecContext else { return false }
        while true {
            let rc = avcodec_receive_frame(codecContext, frame)
            if rc == 0 {
                convertFrame()
                av_frame_unref(frame)
                if !pending.samples.isEmpty { return true }
                continue
            }
            if rc == SPN_AVERROR_EOF {
                // A resampler set up for a later link holds back a few samples of filter delay.
                if !drainedAtEnd {
                    drainedAtEnd = true
                    pending.clear()
                    drainResampler()
                    if !pending.samples.isEmpty { return true }
                }
                finish()
                return false
            }
            if rc != SPN_AVERROR_EAGAIN {
                corruptPackets += 1
                if corruptPackets > 100 { damage = "decoding stopped: too many corrupt frames"; finish(); return false }
                continue
            }
            if draining { finish(); return false }
            let readResult = av_read_frame(formatContext, packet)
            if readResult < 0 {
                if readResult != SPN_AVERROR_EOF { damage = "\(Self.readError) \(framesDelivered) frames" }
                draining = true
                avcodec_send_packet(codecContext, nil)
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            if avcodec_send_packet(codecContext, packet) < 0 {
                corruptPackets += 1
                if damage == nil { damage = Self.badPackets }
                if corruptPackets > 100 { damage = "decoding stopped: too many corrupt packets"; finish(); return false }
            }
        }
    }

    private func convertFrame() {
        let count = Int(frame.pointee.nb_samples)
        guard count > 0 else { return }
        pending.clear()
        let frameInput = FrameInput(rate: frame.pointee.sample_rate, channels: frame.pointee.ch_layout.nb_channels,
                                    format: frame.pointee.format)
        if frameInput != input {
            // A chained Ogg's next link (or a stream that changes parameters): the output keeps the first
            // link's rate and channels, so this link is resampled or remixed to them.
            drainResampler()
            guard reconfigure(for: frameInput) else {
                if damage == nil { damage = "a later part of the stream has parameters that cannot be converted" }
                return
            }
        }
        let capacity = max(Int(swr_get_out_samples(resampler, Int32(count))), count)
        appendConverted(capacity: capacity) { outPlanes in
            frame.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: Int(frameInput.channels)) {
                swr_convert(resampler, outPlanes, Int32(capacity), $0, Int32(count))
            }
        }
    }

    /// Appends to `pending` what the resampler still holds (its filter delay when it changes the rate).
    private func drainResampler() {
        let capacity = Int(swr_get_out_samples(resampler, 0))
        guard capacity > 0 else { return }
        appendConverted(capacity: capacity) { swr_convert(resampler, $0, Int32(capacity), nil, 0) }
    }

    /// Appends up to `capacity` frames to `pending`, written by `convert` (given the output plane; it returns
    /// the frames it wrote).
    private func appendConverted(capacity: Int, _ convert: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32) {
        let channels = format.channels
        let start = pending.samples.count
        pending.samples += repeatElement(0, count: capacity * channels)
        let produced: Int32 = pending.samples.withUnsafeMutableBufferPointer { out in
            var outPointer: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(out.baseAddress! + start)
                .assumingMemoryBound(to: UInt8.self)
            return withUnsafeMutablePointer(to: &outPointer) { convert($0) }
        }
        pending.samples.removeLast((capacity - max(0, Int(produced))) * channels)
    }

    /// A resampler from `frameInput` to the stream's output format; false when the parameters are absurd.
    private func reconfigure(for frameInput: FrameInput) -> Bool {
        guard frameInput.isPlausible, let swr = Self.resampler(from: frameInput, toRate: format.sampleRate, channels: format.channels) else { return false }
        swr_free(&handles.resampler)
        handles.resampler = swr
        input = frameInput
        return true
    }

    /// An initialised resampler to interleaved Float at `rate` and `channels` (default channel orders), or nil.
    private static func resampler(from frameInput: FrameInput, toRate rate: Int, channels: Int) -> OpaquePointer? {
        var inLayout = AVChannelLayout()
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&inLayout, frameInput.channels)
        av_channel_layout_default(&outLayout, Int32(channels))
        var swr: OpaquePointer? = nil
        guard swr_alloc_set_opts2(&swr, &outLayout, AV_SAMPLE_FMT_FLT, Int32(rate), &inLayout,
                                  AVSampleFormat(rawValue: frameInput.format), frameInput.rate, 0, nil) >= 0,
              swr_init(swr) >= 0 else {
            swr_free(&swr)
            return nil
        }
        return swr
    }

    private func finish() {
        finished = true
        // A file cut short ends in a packet cut short: that it is short says more than the bad packet, or the
        // container's read error, at its end (a cut M4A or WavPack was "corrupt data" or "read error").
        let generic = damage == nil || damage == Self.badPackets || damage!.hasPrefix(Self.readError)
        if generic, let expected = format.frameCount,
           Double(framesDelivered) < Double(expected) * 0.99 - 4096 {
            damage = "truncated: decoded \(framesDelivered) of about \(expected) frames"
        }
    }

    private static let badPackets = "corrupt data: some packets could not be decoded"
    private static let readError = "read error in the container after"

    private static func codecName(_ id: AVCodecID, fallback: String) -> String {
        switch id {
        case AV_CODEC_ID_AAC: return "aac"
        case AV_CODEC_ID_ALAC: return "alac"
        case AV_CODEC_ID_WAVPACK: return "wavpack"
        case AV_CODEC_ID_APE: return "ape"
        case AV_CODEC_ID_FLAC: return "flac"
        case AV_CODEC_ID_MP3: return "mp3"
        case AV_CODEC_ID_MP2: return "mp2"
        case AV_CODEC_ID_MP1: return "mp1"
        case AV_CODEC_ID_VORBIS: return "vorbis"
        case AV_CODEC_ID_OPUS: return "opus"
        case AV_CODEC_ID_WMAV1, AV_CODEC_ID_WMAV2, AV_CODEC_ID_WMAPRO, AV_CODEC_ID_WMALOSSLESS: return "wma"
        default: return fallback
        }
    }
}

/// The parameters of decoded frames the resampler reads.
private struct FrameInput: Equatable {
    var rate: Int32
    var channels: Int32
    var format: Int32

    /// 1–64 channels at up to 1.536 MHz: anything else is a corrupt or crafted header.
    var isPlausible: Bool { (1...64).contains(channels) && (1...1_536_000).contains(rate) }
}
