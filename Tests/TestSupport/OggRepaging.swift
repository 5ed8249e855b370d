import Foundation

/// Rewrites an Ogg file's pages the way some encoders did: the first audio page is joined to the page that
/// ends the headers, so audio packets share the header page (which Vorbis I and RFC 7845 forbid, and which
/// libvorbisfile and libsndfile answer by dropping those packets). The packets and granule positions are
/// unchanged; page sequence numbers and checksums are rewritten.
public enum OggRepaging {
    struct Page {
        var header: [UInt8]      // the 27 fixed bytes
        var lacing: [UInt8]
        var body: [UInt8]
        var bytes: [UInt8] { header + lacing + body }
    }

    public static func packAudioOntoHeaderPage(path: String, headerPackets: Int) throws {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var pages: [Page] = []
        var offset = 0
        while offset + 27 <= data.count {
            let count = Int(data[offset + 26])
            let lacing = Array(data[offset + 27 ..< offset + 27 + count])
            let size = lacing.reduce(0) { $0 + Int($1) }
            let start = offset + 27 + count
            pages.append(Page(header: Array(data[offset ..< offset + 27]), lacing: lacing,
                              body: Array(data[start ..< start + size])))
            offset = start + size
        }
        var done = 0
        guard let last = pages.firstIndex(where: { page in
            done += page.lacing.filter { $0 < 255 }.count
            return done >= headerPackets
        }), last + 1 < pages.count else { throw CocoaError(.fileReadCorruptFile) }
        let audio = pages[last + 1]
        guard pages[last].lacing.count + audio.lacing.count <= 255 else { throw CocoaError(.fileWriteUnknown) }
        var joined = pages[last]
        joined.lacing += audio.lacing
        joined.body += audio.body
        joined.header.replaceSubrange(6..<14, with: audio.header[6..<14])    // the audio page's granule
        joined.header[5] |= audio.header[5] & 0x04                           // and its end-of-stream flag
        joined.header[26] = UInt8(joined.lacing.count)
        pages.replaceSubrange(last...(last + 1), with: [joined])
        for i in pages.indices {
            withUnsafeBytes(of: UInt32(i).littleEndian) { pages[i].header.replaceSubrange(18..<22, with: $0) }
            pages[i].header.replaceSubrange(22..<26, with: [0, 0, 0, 0])
            let crc = checksum(pages[i].bytes)
            withUnsafeBytes(of: crc.littleEndian) { pages[i].header.replaceSubrange(22..<26, with: $0) }
        }
        try Data(pages.flatMap(\.bytes)).write(to: URL(fileURLWithPath: path))
    }

    /// Ogg's page checksum: CRC-32, polynomial 0x04C11DB7, not reflected, initial value and final XOR 0.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }
}
