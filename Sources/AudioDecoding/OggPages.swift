import ContainerLayout
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
        var headerPackets: Int?
        var packetsDone = 0
        var headersDone = false
        var streams = 0
        var problem: String?
        walk(b) { offset, tableEnd, _ in
            if OggPageHeader(b[offset...])!.beginsStream { streams += 1 }
            if streams > 1 { problem = "chained Ogg: more than one logical stream"; return false }
            if headerPackets == nil {
                let magic = UnsafeBufferPointer(rebasing: b[tableEnd ..< min(b.count, tableEnd + 8)])
                guard let count = headerPacketCount(identification: magic) else { return false }
                headerPackets = count
            }
            for i in offset + 27 ..< tableEnd where !headersDone && b[i] < 255 {
                packetsDone += 1
                if packetsDone == headerPackets {
                    // The last header packet ends here: any segment after it is audio on the header page.
                    if i + 1 < tableEnd { problem = "audio packets on the Ogg header page"; return false }
                    headersDone = true
                }
            }
            return true
        }
        return problem
    }

    /// Whether the file's pages, laid end to end from its start, reach a whole page that ends its stream
    /// (the end-of-stream flag), whatever follows. libsndfile looks for the last page at the file's end:
    /// junk after it (zero padding, a download site's text) hid the end, and a whole file passed for one
    /// cut short.
    static func reachesEndOfStream(path: String) -> Bool {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return false }
        return data.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            var ended = false
            walk(b) { offset, tableEnd, bodySize in
                ended = OggPageHeader(b[offset...])!.endsStream && tableEnd + bodySize <= b.count
                return !ended
            }
            return ended
        }
    }

    /// Visits the pages laid end to end from the file's start (where each begins, where its segment table
    /// ends, its body's size) until the capture pattern stops (the end, a cut, junk) or `visit` says stop.
    private static func walk(_ b: UnsafeBufferPointer<UInt8>, _ visit: (_ offset: Int, _ tableEnd: Int, _ bodySize: Int) -> Bool) {
        var offset = 0
        while offset <= b.count, let page = OggPageHeader(b[offset...]) {
            let tableEnd = offset + OggPageHeader.size + page.segments
            guard tableEnd <= b.count else { return }
            let bodySize = OggPageHeader.bodySize(lacing: b[(offset + OggPageHeader.size)..<tableEnd])
            guard visit(offset, tableEnd, bodySize) else { return }
            offset = tableEnd + bodySize
        }
    }

    /// Vorbis has three header packets (identification, comment, setup); Opus two (OpusHead, OpusTags).
    static func headerPacketCount(identification magic: UnsafeBufferPointer<UInt8>) -> Int? {
        if magic.count >= 7, magic[0] == 1, magic[1..<7].elementsEqual("vorbis".utf8) { return 3 }
        if magic.count >= 8, magic[0..<8].elementsEqual("OpusHead".utf8) { return 2 }
        return nil
    }
}
