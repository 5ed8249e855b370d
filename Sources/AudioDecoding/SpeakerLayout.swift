import Foundation

/// Where a file states its channel layout, that layout as WAVE_FORMAT_EXTENSIBLE speaker bits, one per channel
/// in the order the decoders deliver them (`AudioFormat.speakers`; the loudness meter weighs channels by it).
/// A 2.1 file's third channel is then its LFE rather than a centre, a 4.0 file's fourth its back centre.
enum SpeakerLayout {
    /// The channels a mask names, in bit order (WAV's and FLAC's channel order); nil when it does not name one
    /// speaker per channel.
    static func speakers(mask: UInt64, channels: Int) -> [UInt64]? {
        guard mask.nonzeroBitCount == channels else { return nil }
        return (0..<64).map { UInt64(1) << UInt64($0) }.filter { mask & $0 != 0 }
    }

    /// libsndfile's channel map (WAV's mask, CAF's and AIFF's layouts) as speaker bits; nil when any channel is
    /// unassigned. Ambisonic components are no speakers: 0.
    static func speakers(sndfileMap map: [Int32]) -> [UInt64]? {
        // SF_CHANNEL_MAP_MONO … TOP_REAR_CENTER (1–22), each to its WAVE_FORMAT_EXTENSIBLE bit.
        let bits: [Int32: Int] = [1: 2, 2: 0, 3: 1, 4: 2, 5: 0, 6: 1, 7: 2, 8: 8, 9: 4, 10: 5, 11: 3, 12: 6, 13: 7,
                                  14: 9, 15: 10, 16: 11, 17: 12, 18: 14, 19: 13, 20: 15, 21: 17, 22: 16]
        var speakers: [UInt64] = []
        for position in map {
            if let bit = bits[position] {
                speakers.append(UInt64(1) << UInt64(bit))
            } else if (23...26).contains(position) {
                speakers.append(0)
            } else {
                return nil
            }
        }
        return speakers
    }

    /// The speakers a native FLAC file of `channels` channels names in its channel-mask comment; nil for
    /// mono and stereo, which have one layout each, and for a file without a usable mask.
    static func speakers(flacAt path: String, channels: Int) -> [UInt64]? {
        guard channels >= 3 else { return nil }
        return flacChannelMask(path: path).flatMap { speakers(mask: $0, channels: channels) }
    }

    /// The WAVEFORMATEXTENSIBLE_CHANNEL_MASK comment of a native FLAC file, which flac and FFmpeg write for a
    /// layout other than the channel count's usual one (2.1, 3.1, 4.0, 5.1 with side speakers). libsndfile does
    /// not read it.
    static func flacChannelMask(path: String) -> UInt64? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        func read(_ count: Int) -> [UInt8]? {
            guard let data = try? file.read(upToCount: count), data.count == count else { return nil }
            return [UInt8](data)
        }
        // A tagger may have put an ID3v2 tag before the stream.
        try? file.seek(toOffset: ContainerSniffer.streamStart(file))
        guard read(4) == Array("fLaC".utf8) else { return nil }
        for _ in 0..<128 {
            guard let header = read(4) else { return nil }
            let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            if header[0] & 0x7F == 4 {
                return read(length).flatMap(channelMask(vorbisComment:))
            }
            guard header[0] & 0x80 == 0, let here = try? file.offset() else { return nil }
            try? file.seek(toOffset: here + UInt64(length))
        }
        return nil
    }

    /// The mask in a Vorbis comment block (vendor, then length-prefixed "NAME=value" fields, little-endian).
    static func channelMask(vorbisComment b: [UInt8]) -> UInt64? {
        var i = 0
        func u32() -> Int? {
            guard i + 4 <= b.count else { return nil }
            defer { i += 4 }
            return Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
        }
        guard let vendor = u32() else { return nil }
        i += vendor
        guard let count = u32() else { return nil }
        let name = Array("WAVEFORMATEXTENSIBLE_CHANNEL_MASK=".utf8)
        for _ in 0..<count {
            guard let length = u32(), i + length <= b.count else { return nil }
            let field = b[i..<i + length]
            i += length
            guard field.count > name.count,
                  zip(field.prefix(name.count), name).allSatisfy({ $0 == $1 || ($0 >= 0x61 && $0 <= 0x7A && $0 - 0x20 == $1) }),
                  let text = String(bytes: field.dropFirst(name.count), encoding: .utf8)?.trimmingCharacters(in: .whitespaces)
            else { continue }
            let hex = text.lowercased().hasPrefix("0x")
            return UInt64(hex ? String(text.dropFirst(2)) : text, radix: hex ? 16 : 10)
        }
        return nil
    }
}
