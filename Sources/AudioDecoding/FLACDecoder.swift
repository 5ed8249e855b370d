import CFLAC
import Foundation

/// FLAC through libFLAC itself, the first choice for native FLAC: libsndfile, which wraps it, stops at a damaged
/// frame, and does not implement FLAC 1.4's 32-bit samples (which FFmpeg before 6.0 decodes none of either).
/// libFLAC skips a damaged frame and goes on; the frames it could not decode are counted as damage. It pushes
/// one decoded frame at a time into a callback; `read` pulls them as interleaved Float, scaled so full scale is ±1.
final class FLACDecoder: AudioDecoder {
    private(set) var format: AudioFormat
    private(set) var damage: String?
    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    /// STREAMINFO, filled by the metadata callback while the decoder reads the header.
    fileprivate var streamInfo: (rate: Int, channels: Int, bits: Int, samples: Int64)?
    fileprivate var pending = PendingSamples()
    fileprivate var errors = 0
    /// Frames decoded so far (delivered or pending).
    fileprivate var decodedFrames: Int64 = 0
    private var finished = false
    private var framesDelivered: Int64 = 0

    init(path: String) throws {
        guard let decoder = FLAC__stream_decoder_new() else {
            throw DecodeError(.unsupported, path: path, reason: "libFLAC unavailable")
        }
        self.decoder = decoder
        format = AudioFormat(sampleRate: 0, channels: 0, codec: "flac", frameCount: nil, bitDepth: nil, backend: "libflac")
        let client = Unmanaged.passUnretained(self).toOpaque()
        guard FLAC__stream_decoder_init_file(decoder, path, flacWrite, flacMetadata, flacError, client)
                == FLAC__STREAM_DECODER_INIT_STATUS_OK,
              FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0,
              let info = streamInfo, info.rate > 0, info.channels > 0, (4...32).contains(info.bits) else {
            // Every property is set by now, so deinit runs and frees the decoder.
            throw DecodeError(.corrupt, path: path, reason: "libFLAC cannot read its header")
        }
        format = AudioFormat(sampleRate: info.rate, channels: info.channels, codec: "flac",
                             frameCount: info.samples > 0 ? info.samples : nil, bitDepth: info.bits, backend: "libflac")
        format.speakers = SpeakerLayout.speakers(flacAt: path, channels: info.channels)
    }

    deinit {
        FLAC__stream_decoder_finish(decoder)
        FLAC__stream_decoder_delete(decoder)
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let channels = format.channels
        var written = 0
        while written < frames {
            let n = pending.take(upTo: frames - written, channels: channels, into: buffer + written * channels)
            written += n
            framesDelivered += Int64(n)
            if n > 0 { continue }
            pending.clear()
            if finished { break }
            let ok = FLAC__stream_decoder_process_single(decoder) != 0
            let state = FLAC__stream_decoder_get_state(decoder)
            if !ok || state == FLAC__STREAM_DECODER_END_OF_STREAM || state == FLAC__STREAM_DECODER_ABORTED {
                finished = true
                if !ok || state == FLAC__STREAM_DECODER_ABORTED { damage = damage ?? "libFLAC stopped decoding" }
            }
        }
        if finished, pending.frames(channels: channels) == 0, damage == nil {
            // STREAMINFO's count is exact: a whole file delivers every frame of it (as libsndfile's check had it).
            if let expected = format.frameCount, framesDelivered < expected {
                damage = "truncated: decoded \(framesDelivered) of \(expected) frames"
            } else if errors > 0 {
                damage = "corrupt data: \(errors) frames could not be decoded"
            }
        }
        return written
    }

    /// One decoded frame, planar integers of `bits` bits (the frame's own depth), appended to `pending` interleaved.
    fileprivate func append(_ planes: UnsafePointer<UnsafePointer<FLAC__int32>?>, blocksize: Int, channels: Int, bits: Int) {
        guard channels == format.channels, (1...32).contains(bits) else { errors += 1; return }
        decodedFrames += Int64(blocksize)
        let scale = 1 / Float(Int64(1) << Int64(bits - 1))
        let start = pending.samples.count
        pending.samples += repeatElement(0, count: blocksize * channels)
        pending.samples.withUnsafeMutableBufferPointer { out in
            for c in 0..<channels {
                guard let plane = planes[c] else { continue }
                for i in 0..<blocksize { out[start + i * channels + c] = Float(plane[i]) * scale }
            }
        }
    }
}

private func decoder(_ client: UnsafeMutableRawPointer?) -> FLACDecoder? {
    client.map { Unmanaged<FLACDecoder>.fromOpaque($0).takeUnretainedValue() }
}

private let flacWrite: FLAC__StreamDecoderWriteCallback = { _, frame, buffer, client in
    guard let self_ = decoder(client), let frame, let buffer else { return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT }
    self_.append(buffer, blocksize: Int(frame.pointee.header.blocksize), channels: Int(frame.pointee.header.channels),
                 bits: Int(frame.pointee.header.bits_per_sample))
    return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
}

private let flacMetadata: FLAC__StreamDecoderMetadataCallback = { _, metadata, client in
    guard let self_ = decoder(client), let metadata, metadata.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
    let info = metadata.pointee.data.stream_info
    self_.streamInfo = (Int(info.sample_rate), Int(info.channels), Int(info.bits_per_sample), Int64(info.total_samples))
}

private let flacError: FLAC__StreamDecoderErrorCallback = { _, _, client in
    guard let self_ = decoder(client) else { return }
    // Bytes after the whole stream are not a damaged frame: an ID3v1 or APEv2 tag some taggers append to FLAC
    // files (libFLAC loses sync on it) had every such file reported partial. (A stream of unknown length
    // cannot tell them apart.)
    if let info = self_.streamInfo, info.samples > 0, self_.decodedFrames >= info.samples { return }
    self_.errors += 1
}
