import Foundation

/// The page layout of an Ogg file, for the two layouts libsndfile decodes short without a word.
///
/// - **Audio on the header page.** Vorbis I (§A.2) and RFC 7845 (§3) require the first audio packet to begin
///   on a fresh page, and libvorbisfile and libsndfile rely on it for Vorbis: when an encoder packed audio
///   packets onto the page that ends the headers, they skip those packets and the next one, and the file
///   decodes short from the front. Three of the 181 Ogg samples LMMS ships are written so (a crash cymbal
///   lost its first 0.39 s, the attack: 17,088 samples).
/// - **Chained streams.** An Ogg file may hold several logical streams one after another (a recorded
///   stream, files joined with `cat`); libsndfile decodes the first and stops there, as if the file ended.
///
/// FFmpeg reads both whole, so `AudioDecoders.open` gives such files to it.
public enum OggPages {
    /// Why libsndfile would decode the file short, or nil when it reads it whole (and for anything that is
    /// not a readable Ogg Vorbis or Opus file: the decoders say what is wrong with those).
    public static func libsndfileDecodesShort(path: String) -> String? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return nil }
        return data.withUnsafeBytes { raw in layoutProblem(raw.bindMemory(to: UInt8.self)) }
    }

    static func layoutProblem(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        var offset = 0
        var headerPackets: Int?
        var packetsDone = 0
        var headersDone = false
        var streams = 0
        while offset + 27 <= b.count, b[offset] == 0x4F, b[offset + 1] == 0x67, b[offset + 2] == 0x67, b[offset + 3] == 0x53 {
            let segmentCount = Int(b[offset + 26])
            let tableEnd = offset + 27 + segmentCount
            guard tableEnd <= b.count else { break }
            if b[offset + 5] & 0x02 != 0 { streams += 1 }          // a page that begins a logical stream
            if streams > 1 { return "chained Ogg: more than one logical stream" }
            if headerPackets == nil {
                let magic = UnsafeBufferPointer(rebasing: b[tableEnd ..< min(b.count, tableEnd + 8)])
                guard let count = headerPacketCount(identification: magic) else { return nil }
                headerPackets = count
            }
            var bodySize = 0
            for i in offset + 27 ..< tableEnd {
                bodySize += Int(b[i])
                guard !headersDone, b[i] < 255 else { continue }
                packetsDone += 1
                if packetsDone == headerPackets {
                    // The last header packet ends here: any segment after it is audio on the header page.
                    if i + 1 < tableEnd { return "audio packets on the Ogg header page" }
                    headersDone = true
                }
            }
            offset = tableEnd + bodySize
        }
        return nil
    }

    /// Vorbis has three header packets (identification, comment, setup); Opus two (OpusHead, OpusTags).
    static func headerPacketCount(identification magic: UnsafeBufferPointer<UInt8>) -> Int? {
        if magic.count >= 7, magic[0] == 1, magic[1..<7].elementsEqual("vorbis".utf8) { return 3 }
        if magic.count >= 8, magic[0..<8].elementsEqual("OpusHead".utf8) { return 2 }
        return nil
    }
}
