import Foundation

/// Every decoder delivers channels in the order WAV, FLAC and FFmpeg use (FL FR FC LFE, then the surrounds),
/// which is the order the loudness meter weighs them in (BS.1770: surrounds +1.5 dB, LFE not counted).
///
/// Vorbis I (§4.3.9) and Opus's mapping family 1 (RFC 7845 §5.1.1.2) store 3 to 8 channels in another order
/// (FL FC FR, surrounds, LFE last), and libsndfile hands them over as stored. Metered in that order, a 5.1
/// Vorbis or Opus file had its rear left taken for the LFE (not counted) and its LFE counted as a surround:
/// its loudness and ReplayGain were wrong, and music only in the rears was "silent". FFmpeg reorders these
/// itself.
public enum ChannelOrder {
    /// For each channel in file order, the Vorbis-order channel it comes from; nil when the orders agree
    /// (1, 2 and 4 channels) or the count has no defined order (over 8).
    public static func fromVorbis(channels: Int) -> [Int]? {
        switch channels {
        case 3: return [0, 2, 1]                        // L C R → L R C
        case 5: return [0, 2, 1, 3, 4]                  // FL FC FR RL RR → FL FR FC BL BR
        case 6: return [0, 2, 1, 5, 3, 4]               // FL FC FR RL RR LFE → FL FR FC LFE BL BR
        case 7: return [0, 2, 1, 6, 5, 3, 4]            // FL FC FR SL SR RC LFE → FL FR FC LFE BC SL SR
        case 8: return [0, 2, 1, 7, 5, 6, 3, 4]         // FL FC FR SL SR RL RR LFE → FL FR FC LFE BL BR SL SR
        default: return nil
        }
    }

    /// Rearranges `frames` interleaved frames in place: output channel k takes input channel `order[k]`.
    public static func apply(_ order: [Int], to buffer: UnsafeMutablePointer<Float>, frames: Int) {
        let channels = order.count
        withUnsafeTemporaryAllocation(of: Float.self, capacity: channels) { frame in
            for f in 0..<frames {
                let p = buffer + f * channels
                for c in 0..<channels { frame[c] = p[c] }
                for c in 0..<channels { p[c] = frame[order[c]] }
            }
        }
    }

    /// The channel mapping family of an Ogg Opus file (its OpusHead's byte 18): 0 for mono and stereo, 1 for
    /// Vorbis-order surround, 255 and others for channels without a defined order; nil when the first page
    /// holds no OpusHead.
    public static func opusMappingFamily(path: String) -> UInt8? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 27 + 255 + 19) else { return nil }
        let b = [UInt8](head)
        guard b.count >= 27, b[0..<4].elementsEqual("OggS".utf8) else { return nil }
        let packet = 27 + Int(b[26])
        guard b.count >= packet + 19, b[packet..<packet + 8].elementsEqual("OpusHead".utf8) else { return nil }
        return b[packet + 18]
    }
}
