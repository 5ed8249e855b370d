/// Speaker positions as the bits of WAVE_FORMAT_EXTENSIBLE's channel mask, which FFmpeg's AV_CH_* values
/// share (and extend past bit 17): the one vocabulary every decoder can state a file's layout in.
public enum SpeakerBits {
    public static let frontLeft: UInt64 = 1 << 0
    public static let frontRight: UInt64 = 1 << 1
    public static let frontCenter: UInt64 = 1 << 2
    public static let lowFrequency: UInt64 = 1 << 3
    public static let backLeft: UInt64 = 1 << 4
    public static let backRight: UInt64 = 1 << 5
    public static let backCenter: UInt64 = 1 << 8
    public static let sideLeft: UInt64 = 1 << 9
    public static let sideRight: UInt64 = 1 << 10
    public static let topBackLeft: UInt64 = 1 << 15
    public static let topBackCenter: UInt64 = 1 << 16
    public static let topBackRight: UInt64 = 1 << 17
    public static let surroundDirectLeft: UInt64 = 1 << 33
    public static let surroundDirectRight: UInt64 = 1 << 34
    public static let lowFrequency2: UInt64 = 1 << 35

    /// The layout a file of `channels` channels has when it states none: FLAC's (and, once `ChannelOrder` has
    /// put them in this order, Vorbis's and Opus's) — four channels are quadraphonic, six are 5.1. Nil above
    /// eight, where no convention exists.
    public static func usual(channels: Int) -> [UInt64]? {
        let (fl, fr, fc, lfe, bl, br, bc, sl, sr) = (frontLeft, frontRight, frontCenter, lowFrequency, backLeft, backRight,
                                                     backCenter, sideLeft, sideRight)
        switch channels {
        case 1: return [fc]
        case 2: return [fl, fr]
        case 3: return [fl, fr, fc]
        case 4: return [fl, fr, bl, br]
        case 5: return [fl, fr, fc, bl, br]
        case 6: return [fl, fr, fc, lfe, bl, br]
        case 7: return [fl, fr, fc, lfe, bc, sl, sr]
        case 8: return [fl, fr, fc, lfe, bl, br, sl, sr]
        default: return nil
        }
    }

    /// BS.1770's channel weights: the LFE is not counted, a speaker beside or behind the listener counts
    /// ×1.41 (+1.5 dB), every other one ×1. The surround set is ffmpeg's `ebur128` filter's, so the two agree
    /// on the layouts BS.1770 leaves open (a back centre, rear heights). Without a layout, all weigh 1.
    public static func loudnessWeights(channels: Int, speakers: [UInt64]?) -> [Double] {
        guard let speakers = speakers ?? usual(channels: channels), speakers.count == channels else {
            return [Double](repeating: 1, count: channels)
        }
        let surround = backLeft | backRight | backCenter | sideLeft | sideRight | topBackLeft | topBackCenter
            | topBackRight | surroundDirectLeft | surroundDirectRight
        return speakers.map { bit in
            if bit & (lowFrequency | lowFrequency2) != 0 { return 0 }
            return bit & surround != 0 ? 1.41 : 1
        }
    }
}
