import ContainerLayout
import Foundation

/// The container a file's first bytes announce. Decoders are chosen from this, never from the extension,
/// so a FLAC named `.mp3` decodes and random bytes named `.flac` are refused.
public enum Container: String, Sendable {
    /// `rifx`: WAVE with big-endian sizes and samples, which only libsndfile reads right.
    case flac, ogg, wav, rifx, aiff, mp3, mp4, adts, wavpack, ape, asf, caf, matroska, au, tak, unknown
}

public enum ContainerSniffer {
    /// Reads the head of the file (after any ID3v2 tags) and names its container.
    public static func sniff(path: String) throws -> Container {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DecodeError(.unreadable, path: path, reason: "cannot open for reading (\(String(cString: strerror(errno))))")
        }
        defer { try? handle.close() }
        // Read from where the stream starts, after any ID3v2 tags (cover art can make them any size), so that
        // what follows them is in the buffer in full to be told (MPEG audio: two whole frames, up to 16 KiB in).
        let start = streamStart(handle)
        try handle.seek(toOffset: start)
        let head: Data
        do { head = try handle.read(upToCount: 64 * 1024) ?? Data() } catch {
            // Not an empty file: one whose first bytes the disk could not deliver.
            throw DecodeError(.unreadable, path: path, reason: FileReadCheck.failure(path: path) ?? "cannot read (\(error.localizedDescription))")
        }
        if head.isEmpty {
            if start == 0 { throw DecodeError(.empty, path: path, reason: "empty file (0 bytes)") }
            return .unknown
        }
        // A broken tag header (a size byte over 0x7F) still says tags came first: search as far.
        return classify([UInt8](head), hadID3: start > 0 || head.starts(with: [0x49, 0x44, 0x33]))
    }

    /// Where the stream starts: after the ID3v2 tags (several may be chained) at the start of the file, read
    /// header by header; 0 without any.
    static func streamStart(_ handle: FileHandle) -> UInt64 {
        var offset: UInt64 = 0
        while (try? handle.seek(toOffset: offset)) != nil, let header = try? handle.read(upToCount: 10),
              let size = id3v2Size(header, at: 0) {
            offset += UInt64(size)
        }
        return offset
    }

    static func id3v2Size(_ data: Data, at offset: Int) -> Int? { ID3v2Header.tagSize(data.dropFirst(offset)) }

    static func classify(_ b: [UInt8], hadID3: Bool) -> Container {
        func ascii(_ s: String, at i: Int = 0) -> Bool {
            let u = Array(s.utf8)
            return b.count >= i + u.count && Array(b[i..<i + u.count]) == u
        }
        if ascii("fLaC") { return .flac }
        if ascii("OggS") { return .ogg }
        if ascii("RIFF") && ascii("WAVE", at: 8) { return .wav }
        if ascii("RIFX") && ascii("WAVE", at: 8) { return .rifx }
        if (ascii("RF64") || ascii("BW64")) && ascii("WAVE", at: 8) { return .wav }
        if ascii("FORM") && (ascii("AIFF", at: 8) || ascii("AIFC", at: 8)) { return .aiff }
        if ascii("ftyp", at: 4) { return .mp4 }
        if ascii("wvpk") { return .wavpack }
        if ascii("MAC ") { return .ape }
        if ascii("caff") { return .caf }
        if ascii(".snd") { return .au }
        // FFmpeg's own probe gives TAK's signature only the score of a matching extension, which `recognises`
        // does not take from the bytes alone: such files were "not an audio file".
        if ascii("tBaK") { return .tak }
        if b.count >= 4, b[0] == 0x1A, b[1] == 0x45, b[2] == 0xDF, b[3] == 0xA3 { return .matroska }
        let asfGUID: [UInt8] = [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]
        if b.count >= 8, Array(b[0..<8]) == asfGUID { return .asf }
        // MPEG audio: accept only two consecutive valid frame headers, searched within the first bytes
        // (junk and padding before the first frame are common), so random data is not taken for MP3.
        let limit = min(b.count - 4, hadID3 ? 16 * 1024 : 4 * 1024)
        var i = 0
        while i < limit {
            if b[i] == 0xFF, (b[i + 1] & 0xE0) == 0xE0 {
                if (b[i + 1] & 0x06) == 0 {
                    if let len = adtsFrameLength(b, at: i), i + len + 1 < b.count, b[i + len] == 0xFF, (b[i + len + 1] & 0xF6) == 0xF0 {
                        return .adts
                    }
                } else if let len = MPEGFrameHeader(b, at: i)?.frameLength, i + len + 4 <= b.count,
                          MPEGFrameHeader(b, at: i + len) != nil {
                    return .mp3
                } else if MPEGFrameHeader.freeFormatFrameLength(b, at: i) != nil {
                    return .mp3
                }
            }
            i += 1
        }
        // Further in, to the end of what was read: cover art spilling out of a tag that states too small a size,
        // or a long run of padding before the first frame, which players skip. Three layer II or III frames in
        // step there, without the reserved emphasis: a table inside a program's binary chained 89 "layer I"
        // headers with it.
        for j in limit..<max(limit, b.count - 4) where b[j] == 0xFF && (b[j + 1] >> 1) & 0x03 != 0x03
            && b[j + 3] & 0x03 != 0x02 && MPEGFrameHeader.inStep(b, at: j) {
            return .mp3
        }
        return .unknown
    }

    static func adtsFrameLength(_ b: [UInt8], at i: Int) -> Int? {
        guard i + 7 <= b.count else { return nil }
        let len = (Int(b[i + 3] & 0x03) << 11) | (Int(b[i + 4]) << 3) | (Int(b[i + 5]) >> 5)
        return len >= 7 ? len : nil
    }
}

/// One MPEG-1/2/2.5 audio frame header (layers I–III).
struct MPEGFrameHeader {
    let frameLength: Int
    let samplesPerFrame: Int
    let sideInfoLength: Int

    init?(_ b: [UInt8], at i: Int) {
        guard i + 4 <= b.count, b[i] == 0xFF, (b[i + 1] & 0xE0) == 0xE0 else { return nil }
        let version = (b[i + 1] >> 3) & 0x03          // 0: 2.5, 2: 2, 3: 1
        let layer = (b[i + 1] >> 1) & 0x03            // 1: III, 2: II, 3: I
        let bitrateIndex = Int(b[i + 2] >> 4)
        let rateIndex = Int((b[i + 2] >> 2) & 0x03)
        let padding = Int((b[i + 2] >> 1) & 0x01)
        guard version != 1, layer != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let rates: [[Int]] = [[11025, 12000, 8000], [], [22050, 24000, 16000], [44100, 48000, 32000]]
        let sampleRate = rates[Int(version)][rateIndex]
        let v1 = version == 3
        let kbps: Int
        switch (v1, layer) {
        case (true, 3): kbps = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448][bitrateIndex]
        case (true, 2): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384][bitrateIndex]
        case (true, _): kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320][bitrateIndex]
        case (false, 3): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256][bitrateIndex]
        case (false, _): kbps = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160][bitrateIndex]
        }
        let mono = (b[i + 3] >> 6) == 3
        samplesPerFrame = layer == 3 ? 384 : (layer == 2 || v1 ? 1152 : 576)
        sideInfoLength = layer == 1 ? (v1 ? (mono ? 17 : 32) : (mono ? 9 : 17)) : 0
        if layer == 3 {
            frameLength = (12 * kbps * 1000 / sampleRate + padding) * 4
        } else {
            let coefficient = (layer == 1 && !v1) ? 72 : 144
            frameLength = coefficient * kbps * 1000 / sampleRate + padding
        }
        guard frameLength > 4 else { return nil }
    }
}

extension MPEGFrameHeader {
    /// The length of a free-format frame at `i` (bitrate index 0: the encoder chose a rate the table lacks,
    /// as `lame --freeformat` does above 320 kbps), from the next two frame headers with the same version,
    /// layer, sample rate and channel mode at the same spacing (±1 byte of padding). Three headers in step
    /// are required, so random bytes are not taken for MP3. libmpg123 decodes such streams.
    static func freeFormatFrameLength(_ b: [UInt8], at i: Int) -> Int? {
        guard i + 4 <= b.count, b[i] == 0xFF, (b[i + 1] & 0xE0) == 0xE0 else { return nil }
        let version = (b[i + 1] >> 3) & 0x03, layer = (b[i + 1] >> 1) & 0x03
        guard version != 1, layer != 0, b[i + 2] >> 4 == 0, (b[i + 2] >> 2) & 0x03 != 3 else { return nil }
        func sameHeader(_ j: Int) -> Bool {
            j + 4 <= b.count && b[j] == 0xFF && b[j + 1] & 0xFE == b[i + 1] & 0xFE && b[j + 2] & 0xFC == b[i + 2] & 0xFC
                && b[j + 3] & 0xC0 == b[i + 3] & 0xC0
        }
        // Free-format frames stay under 4 KiB at any rate and bitrate libmpg123 accepts.
        guard b.count - i - 4 >= 24 else { return nil }
        for length in 24...min(4_096, b.count - i - 4) where sameHeader(i + length) {
            if (length - 1...length + 1).contains(where: { sameHeader(i + length + $0) }) { return length }
        }
        return nil
    }
}

extension MPEGFrameHeader {
    /// Whether MPEG audio frames go on somewhere after `offset` of the file at `path`: three frame headers in
    /// step (each where the one before ends, with the same version, layer and sample rate), so that junk or a
    /// tag at the end (an APEv2 tag with cover art) is not taken for audio. Read in 1 MiB windows.
    static func resume(path: String, after offset: Int64) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path), (try? handle.seek(toOffset: UInt64(max(0, offset)))) != nil else {
            return false
        }
        defer { try? handle.close() }
        var carry: [UInt8] = []
        while let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty {
            let b = carry + [UInt8](data)
            // Frames are under 2 KB: a window's last 8 KiB are looked at again with the next one.
            let searched = max(0, b.count - 8192)
            for i in 0..<searched where b[i] == 0xFF && inStep(b, at: i) { return true }
            carry = Array(b[searched...])
        }
        return (0..<carry.count).contains { carry[$0] == 0xFF && inStep(carry, at: $0) }
    }

    static func inStep(_ b: [UInt8], at i: Int) -> Bool {
        var at = i
        for _ in 0..<3 {
            guard let frame = MPEGFrameHeader(b, at: at), b[at + 1] & 0xFE == b[i + 1] & 0xFE,
                  b[at + 2] & 0x0C == b[i + 2] & 0x0C else { return false }
            at += frame.frameLength
        }
        return true
    }
}

/// The Xing/Info header an encoder writes in the first MPEG frame: it states how many frames the stream
/// holds, which tells a truncated MP3 (fewer frames than announced) from a short one.
enum XingHeader {
    /// The announced number of samples per channel, or nil without a Xing/Info header with a frame count.
    static func announcedSamples(path: String) -> Int64? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: ContainerSniffer.streamStart(handle))) != nil,
              let head = try? handle.read(upToCount: 16 * 1024), !head.isEmpty else { return nil }
        var offset = 0
        let b = [UInt8](head)
        while offset + 4 < b.count, MPEGFrameHeader(b, at: offset) == nil { offset += 1 }
        guard let frame = MPEGFrameHeader(b, at: offset) else { return nil }
        let end = min(b.count, offset + frame.frameLength)
        for tag in ["Xing", "Info"] {
            let marker = Array(tag.utf8)
            var i = offset + 4
            while i + 12 <= end {
                if Array(b[i..<i + 4]) == marker {
                    let flags = Int(b[i + 7])
                    guard flags & 1 != 0 else { return nil }
                    let frames = Int64(b[i + 8]) << 24 | Int64(b[i + 9]) << 16 | Int64(b[i + 10]) << 8 | Int64(b[i + 11])
                    return frames * Int64(frame.samplesPerFrame)
                }
                i += 1
            }
        }
        return nil
    }
}
