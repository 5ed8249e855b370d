import ContainerLayout
import Foundation

/// An identity of a file's audio alone, which editing its tags leaves as it was. Picard, beets and every
/// other tagger rewrite the tag blocks and so the file's content key; with this the analysis of a retagged
/// file carries over instead of being decoded and computed again (a library retagged by beets had been
/// analysed again whole the next night).
///
/// - FLAC: the stream's own MD5 of its decoded samples with its sample rate, channels, bits and length
///   (STREAMINFO, which taggers never touch), and how many bytes of frames follow the metadata blocks. Those
///   say what the file should hold, not what it holds: a file cut short by a copy that failed over it kept its
///   key, so its analysis of the whole file stayed, and nothing told the user. The frames' length, which no
///   tag edit changes, tells. An encoder that left the MD5 unset gets the frames' bytes, as below.
/// - MP3, MP2 and ADTS AAC (also under an ID3v2 tag), WAV (RIFF, and RIFX with big-endian sizes), AIFF: FNV-1a
///   over the size, first and last 64 KiB of the bytes that hold the audio: between an ID3v2 tag and ID3v1 /
///   APEv2 tags at the end, the `data` chunk, the `SSND` chunk. These sample the ends, as the content key does,
///   and for WAV and AIFF 16 blocks of 4 KiB spread between them: PCM changed in place keeps its size, and a
///   track whose ends are silent kept its key (and its analysis) through normalize-audio or wavegain raising
///   its level, or an editor saving it again changed.
/// - MP4 (M4A, ALAC): the same over the `mdat` payload, together with every track's sample description,
///   sample tables and edit list (which trims the decoded audio), but not the chunk offsets, which move
///   whenever the tags before `mdat` grow.
/// - Ogg Vorbis and Opus: the headers the decoder reads (Vorbis identification and setup, `OpusHead` with its
///   output gain) and, from the first page after them, the audio pages' size in all and the payloads and
///   granule positions of the first and last 64 KiB of them. Not the page sequence numbers and checksums,
///   which a longer comment header renumbers on every page after it. FLAC in Ogg: STREAMINFO with the audio
///   pages' length, as for FLAC; the audio pages as above when its MD5 is unset.
/// - WavPack, Monkey's Audio, Musepack and TTA: as MP3, from their stream's magic (`wvpk`, `MAC `, `MPCK` /
///   `MP+`, `TTA1`) to the APEv2 / ID3v1 tags these formats carry at the end.
/// - DSF: the `fmt ` and `data` chunks (what follows is the ID3v2 tag, which the header points to); DSDIFF:
///   the `DSD ` sound chunk and the `PROP` chunk that describes it, not the `ID3 `, `DIIN` or `COMT` chunks.
/// - ASF (WMA): the Data Object's packets, with every Stream Properties Object (the codec's parameters) hashed
///   beside them; not the Header Object's other objects (Content Description, Extended Content Description,
///   Metadata, padding), which taggers rewrite, nor the File Properties Object, whose file size they change.
/// - Others: nil, and a changed file is analysed again.
public enum AudioKey {
    static let extensions: Set<String> = ["flac", "mp3", "mp2", "aac", "wav", "wave", "aif", "aiff", "aifc", "m4a", "m4b",
                                          "mp4", "alac", "ogg", "oga", "opus", "wv", "ape", "mpc", "mpp", "tta", "dsf", "dff", "wma"]
    /// Frame-synced streams (MPEG audio, ADTS AAC) that taggers wrap in ID3v2 before and ID3v1 / APEv2 after.
    private static let framed: Set<String> = ["mp3", "mp2", "aac"]
    /// Where the stream of each APEv2-tagged format starts, by its magic.
    private static let apeTaggedMagic: [String: [[UInt8]]] = [
        "wv": [Array("wvpk".utf8)], "ape": [Array("MAC ".utf8)], "mpc": [Array("MPCK".utf8), Array("MP+".utf8)],
        "mpp": [Array("MPCK".utf8), Array("MP+".utf8)], "tta": [Array("TTA1".utf8)],
    ]

    /// Whether files of this name's kind can have an audio key (no file is read).
    public static func applies(to path: String) -> Bool {
        extensions.contains((path as NSString).pathExtension.lowercased())
    }

    public static func compute(path: String, size: Int64) -> String? {
        let kind = (path as NSString).pathExtension.lowercased()
        guard extensions.contains(kind) else { return nil }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let file = Reader(fd: fd, size: size)
        // Some taggers put an ID3v2 tag before a FLAC stream too.
        let start = file.id3v2End(at: 0)
        guard let magic = file.bytes(at: start, count: 4) else { return nil }
        switch Array(magic) {
        case Array("fLaC".utf8): return flac(file, streamStart: start)
        case Array("RIFF".utf8): return start == 0 ? riff(file, bigEndian: false) : nil
        case Array("RIFX".utf8): return start == 0 ? riff(file, bigEndian: true) : nil
        case Array("FORM".utf8): return start == 0 ? aiff(file) : nil
        case Array("OggS".utf8): return start == 0 ? ogg(file) : nil
        case Array("DSD ".utf8): return start == 0 && kind == "dsf" ? dsf(file) : nil
        case Array("FRM8".utf8): return start == 0 && kind == "dff" ? dff(file) : nil
        case Array(asfHeader.prefix(4)): return start == 0 ? asf(file) : nil
        default:
            if framed.contains(kind) { return mpeg(file, audioStart: start) }
            if let magics = apeTaggedMagic[kind], magics.contains(where: { Array(magic.prefix($0.count)) == $0 }) {
                let end = file.endBeforeTrailingTags(after: start)
                return end > start ? file.regionKey(start..<end) : nil
            }
            if let type = file.bytes(at: 4, count: 4), Array(type) == Array("ftyp".utf8) { return mp4(file) }
            return nil
        }
    }

    /// STREAMINFO's stream description and MD5 with the frames' length (to the ID3v1 / APEv2 tags some taggers
    /// add at the end); the frames after the last metadata block when the MD5 is unset.
    private static func flac(_ file: Reader, streamStart: Int64) -> String? {
        guard let header = file.bytes(at: streamStart + 4, count: 4), header[0] & 0x7F == 0,
              let info = file.bytes(at: streamStart + 8, count: 34) else { return nil }
        let described = info[10..<34]
        var offset = streamStart + 4
        while true {
            guard let block = file.bytes(at: offset, count: 4) else { return nil }
            offset += 4 + (Int64(block[1]) << 16 | Int64(block[2]) << 8 | Int64(block[3]))
            if block[0] & 0x80 != 0 { break }
        }
        if info[18..<34].contains(where: { $0 != 0 }) {
            let end = file.endBeforeTrailingTags(after: offset)
            return end > offset ? "flac:" + Reader.hex(described) + ":\(end - offset)" : nil
        }
        return file.regionKey(offset..<file.size)
    }

    /// The `data` chunk of a RIFF WAVE file (RIFX: the big-endian variant).
    private static func riff(_ file: Reader, bigEndian: Bool) -> String? {
        guard let form = file.bytes(at: 8, count: 4), Array(form) == Array("WAVE".utf8) else { return nil }
        return file.chunk("data", from: 12, bigEndian: bigEndian)
    }

    /// The `SSND` chunk of an AIFF or AIFF-C file.
    private static func aiff(_ file: Reader) -> String? {
        guard let form = file.bytes(at: 8, count: 4), [Array("AIFF".utf8), Array("AIFC".utf8)].contains(Array(form)) else { return nil }
        return file.chunk("SSND", from: 12, bigEndian: true)
    }

    /// The `mdat` payload and, from `moov`, what decides how it decodes: each track's sample description and
    /// sample tables (`stbl` without `stco` / `co64`) and edit list (`elst`).
    private static func mp4(_ file: Reader) -> String? {
        var mdat: Range<Int64>?
        var moov: Range<Int64>?
        for atom in file.atoms(in: 0..<file.size) {
            if atom.type == "mdat", mdat == nil { mdat = atom.payload }
            if atom.type == "moov" { moov = atom.payload }
            // A fragmented file keeps its sample tables in fragments spread through the file: not this key's.
            if atom.type == "moof" { return nil }
        }
        guard let mdat, let moov, moov.count <= 64 << 20, let samples = file.regionKey(mdat) else { return nil }
        var hash = FNV1a()
        for trak in file.atoms(in: moov) where trak.type == "trak" {
            for part in file.atoms(in: trak.payload) {
                if part.type == "edts", let elst = file.atoms(in: part.payload).first(where: { $0.type == "elst" }) {
                    guard file.add(elst, to: &hash) else { return nil }
                }
                guard part.type == "mdia", let minf = file.atoms(in: part.payload).first(where: { $0.type == "minf" }),
                      let stbl = file.atoms(in: minf.payload).first(where: { $0.type == "stbl" }) else { continue }
                for table in file.atoms(in: stbl.payload) where table.type != "stco" && table.type != "co64" {
                    guard file.add(table, to: &hash) else { return nil }
                }
            }
        }
        return samples + String(format: ":%016llx", hash.value)
    }

    /// One logical Vorbis or Opus stream: the headers that decide decoding, then the audio pages without their
    /// sequence numbers and checksums.
    private static func ogg(_ file: Reader) -> String? {
        var hash = FNV1a()
        var offset: Int64 = 0
        var packet: [UInt8] = []
        var packets = 0, needed = 0, serial: UInt32?
        var described: String?
        // Vorbis and Opus: every header but the comments decides decoding. FLAC: only STREAMINFO does (hashed
        // when the first packet is read); its other headers are metadata blocks, which taggers rewrite.
        var decides: (Int) -> Bool = { $0 != 1 }
        // Header pages: gather packets until the last header packet has ended; audio starts on the next page.
        while needed == 0 || packets < needed {
            guard let page = file.oggPage(at: offset), serial == nil || page.serial == serial else { return nil }
            serial = page.serial
            let payload = page.payload.isEmpty ? [][...] : file.bytes(at: page.payload.lowerBound, count: page.payload.count)
            guard let payload else { return nil }
            var cursor = payload.startIndex
            for lacing in page.lacing {
                let end = cursor + Int(lacing)
                // Only the headers hashed are kept whole: a comment packet may hold megabytes of cover art.
                if packets == 0 || decides(packets) { packet += payload[cursor..<end] }
                guard packet.count <= 1 << 24 else { return nil }
                cursor = end
                guard lacing < 255 else { continue }
                if packets == 0 {
                    if packet.starts(with: Array("OpusHead".utf8)) {
                        needed = 2
                    } else if packet.starts(with: [1] + Array("vorbis".utf8)) {
                        needed = 3
                    } else if let flac = FLACInOgg(packet) {
                        // With the MD5 set, the description and the audio pages' length (below) are the key.
                        described = flac.key
                        needed = 1 + flac.headerPackets
                        hash.add(Array(flac.described))
                        decides = { _ in false }
                    } else {
                        return nil
                    }
                }
                if decides(packets) { hash.add(packet) }
                packet.removeAll(keepingCapacity: true)
                packets += 1
            }
            offset = page.payload.upperBound
            // Audio sharing a page with the headers is not the layout the specifications require.
            guard needed == 0 || packets <= needed, packet.isEmpty || packets < needed else { return nil }
        }
        let audio = offset..<file.size
        guard !audio.isEmpty else { return nil }
        if let described { return described + ":\(audio.count)" }
        withUnsafeBytes(of: Int64(audio.count).littleEndian) { hash.add($0) }
        // The first 64 KiB of audio pages, then the pages that end the file (found from a capture pattern in
        // the last 64 KiB whose chain of pages reaches the end exactly).
        var hashed = 0
        while hashed < Reader.window, offset < file.size {
            guard let page = file.oggPage(at: offset), page.serial == serial, file.add(page, to: &hash) else { return nil }
            hashed += page.payload.count
            offset = page.payload.upperBound
        }
        guard offset < file.size else { return String(format: "ogg:%016llx", hash.value) }
        let searchFrom = max(offset, file.size - Int64(Reader.window))
        guard let tail = file.bytes(at: searchFrom, count: Int(file.size - searchFrom)) else { return nil }
        var candidate = tail.startIndex
        // A capture pattern inside a payload starts no chain that ends the file; a few tries find the real one.
        for _ in 0..<64 {
            guard let found = Reader.captureIndex(in: tail, from: candidate) else { break }
            var pages: [Reader.OggPage] = []
            var at = searchFrom + Int64(found)
            while at < file.size, let page = file.oggPage(at: at), page.serial == serial {
                pages.append(page)
                at = page.payload.upperBound
            }
            if at == file.size {
                for page in pages { guard file.add(page, to: &hash) else { return nil } }
                return String(format: "ogg:%016llx", hash.value)
            }
            candidate = found + 1
        }
        return nil
    }

    /// The first packet of FLAC in Ogg: the mapping's header (0x7F "FLAC", version, the number of header
    /// packets that follow), then "fLaC" and the STREAMINFO block.
    private struct FLACInOgg {
        /// STREAMINFO's stream description: rate, channels, bits, length and MD5, as for a native FLAC file.
        let described: ArraySlice<UInt8>
        let headerPackets: Int

        init?(_ packet: [UInt8]) {
            guard packet.count >= 51, packet.starts(with: [0x7F] + Array("FLAC".utf8)),
                  Array(packet[9..<13]) == Array("fLaC".utf8), packet[13] & 0x7F == 0 else { return nil }
            headerPackets = Int(packet[7]) << 8 | Int(packet[8])
            // Zero means "unknown": the headers' end could only be guessed.
            guard headerPackets > 0 else { return nil }
            described = packet[27..<51]
        }

        /// With the MD5 of the decoded samples set, the description is the key, with the audio pages' length as
        /// for a native FLAC file; without it, the audio pages must be hashed too.
        var key: String? {
            described.suffix(16).contains { $0 != 0 } ? "oggflac:" + Reader.hex(described) : nil
        }
    }

    /// MPEG audio (or ADTS) frames from the first frame header near `audioStart` to the ID3v1 / APEv2 tags at
    /// the end: both begin with at least 11 set bits of sync.
    private static func mpeg(_ file: Reader, audioStart: Int64) -> String? {
        // Taggers may leave zero padding before the first frame; anything else there is not a frame we know.
        guard let head = file.bytes(at: audioStart, count: Int(min(4096, file.size - audioStart))),
              let sync = head.firstIndex(where: { $0 != 0 }), sync + 1 < head.count,
              head[sync] == 0xFF, head[sync + 1] & 0xE0 == 0xE0 else { return nil }
        let start = audioStart + Int64(sync)
        let end = file.endBeforeTrailingTags(after: start)
        return end > start ? file.regionKey(start..<end) : nil
    }

    /// DSF: the `fmt ` chunk (rate, channels, length) through the end of the `data` chunk, which follow the
    /// 28-byte `DSD ` chunk whose file size and tag pointer a tagger rewrites.
    private static func dsf(_ file: Reader) -> String? {
        guard let head = file.bytes(at: 0, count: 12), Reader.littleEndian(head[4..<8]) == 28,
              Reader.littleEndian(head[8..<12]) == 0 else { return nil }
        var offset: Int64 = 28
        while let header = file.bytes(at: offset, count: 12) {
            guard let length = Reader.size64(header[4..<12], limit: file.size), length >= 12 else { return nil }
            if Array(header[0..<4]) == Array("data".utf8) { return file.regionKey(28..<min(file.size, offset + length)) }
            offset += length
        }
        return nil
    }

    /// DSDIFF: the `DSD ` sound chunk, with the `PROP` chunk (rate, channels, compression) hashed beside it.
    private static func dff(_ file: Reader) -> String? {
        guard let form = file.bytes(at: 12, count: 4), Array(form) == Array("DSD ".utf8) else { return nil }
        var properties: ArraySlice<UInt8>?
        var offset: Int64 = 16
        while let header = file.bytes(at: offset, count: 12) {
            let length = Int64(Reader.bigEndian(header[4..<8])) << 32 | Int64(Reader.bigEndian(header[8..<12]))
            guard length >= 0, length <= file.size else { return nil }
            let payload = offset + 12
            switch String(decoding: header[0..<4], as: UTF8.self) {
            case "PROP":
                guard length <= 1 << 20 else { return nil }
                properties = file.bytes(at: payload, count: Int(length))
            case "DSD ":
                guard let properties, let sound = file.regionKey(payload..<min(file.size, payload + length)) else { return nil }
                var hash = FNV1a()
                properties.withUnsafeBytes { hash.addWords($0) }
                return withParameters(sound, hash)
            default:
                break
            }
            offset = payload + length + (length & 1)
        }
        return nil
    }

    private static let asfHeader: [UInt8] = [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]
    private static let asfData: [UInt8] = [0x36, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]
    private static let asfStreamProperties: [UInt8] = [0x91, 0x07, 0xDC, 0xB7, 0xB7, 0xA9, 0xCF, 0x11, 0x8E, 0xE6, 0x00, 0xC0, 0x0C, 0x20, 0x53, 0x65]

    /// ASF: the Header Object's Stream Properties Objects, then the Data Object that follows the header.
    private static func asf(_ file: Reader) -> String? {
        guard let header = file.bytes(at: 0, count: 30), Array(header.prefix(16)) == asfHeader,
              let headerSize = Reader.size64(header[16..<24], limit: file.size), headerSize >= 30 else { return nil }
        var parameters = FNV1a()
        var streams = 0
        var offset: Int64 = 30
        while offset + 24 <= headerSize {
            guard let object = file.bytes(at: offset, count: 24),
                  let size = Reader.size64(object[16..<24], limit: headerSize - offset), size >= 24 else { return nil }
            if Array(object.prefix(16)) == asfStreamProperties {
                guard size <= 1 << 20, let payload = file.bytes(at: offset + 24, count: Int(size - 24)) else { return nil }
                payload.withUnsafeBytes { parameters.addWords($0) }
                streams += 1
            }
            offset += size
        }
        guard streams > 0, let data = file.bytes(at: headerSize, count: 24), Array(data.prefix(16)) == asfData,
              let dataSize = Reader.size64(data[16..<24], limit: file.size - headerSize), dataSize > 24,
              let sound = file.regionKey(headerSize..<headerSize + dataSize) else { return nil }
        return withParameters(sound, parameters)
    }

    /// A sound region's key with the hash of the parameters that decide how it decodes (DSDIFF's `PROP`,
    /// ASF's Stream Properties) beside it.
    private static func withParameters(_ sound: String, _ parameters: FNV1a) -> String {
        sound + String(format: ":%016llx", parameters.value)
    }

    /// Positioned reads of one open file. Small reads are served from a 64 KiB block read ahead: walking Ogg
    /// pages or MP4 atoms reads many small headers close together, and one `pread` each had made a first scan
    /// of a library with Ogg files a third slower.
    final class Reader {
        let fd: Int32
        let size: Int64
        /// The ends a region key samples: the content key's windows.
        static let window = ContentKey.window
        static let smallRead = 16 * 1024
        private var block: [UInt8] = []
        private var blockStart: Int64 = 0

        init(fd: Int32, size: Int64) {
            self.fd = fd
            self.size = size
        }

        /// `count` bytes at `offset`, indexed from 0; nil when the file does not hold them all.
        func bytes(at offset: Int64, count: Int) -> ArraySlice<UInt8>? {
            guard offset >= 0, count > 0, offset + Int64(count) <= size else { return nil }
            guard count <= Self.smallRead else { return read(at: offset, count: count)?[...] }
            if offset < blockStart || offset + Int64(count) > blockStart + Int64(block.count) {
                guard let ahead = read(at: offset, count: Int(min(Int64(Self.window), size - offset))) else { return nil }
                block = ahead
                blockStart = offset
            }
            let start = Int(offset - blockStart)
            return Array(block[start..<(start + count)])[...]
        }

        private func read(at offset: Int64, count: Int) -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: count)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? buffer : nil
        }

        /// Where an ID3v2 tag starting at `offset` ends (header, syncsafe size, footer when flagged); `offset`
        /// when there is none.
        func id3v2End(at offset: Int64) -> Int64 {
            guard let h = bytes(at: offset, count: 10), let size = ID3v2Header.tagSize(h) else { return offset }
            return offset + Int64(size)
        }

        struct OggPage {
            var granule: UInt64
            var serial: UInt32
            var flags: UInt8
            var lacing: ArraySlice<UInt8>
            var payload: Range<Int64>
        }

        /// The Ogg page whose capture pattern is at `offset`, with its segment table and payload range.
        func oggPage(at offset: Int64) -> OggPage? {
            guard let h = bytes(at: offset, count: OggPageHeader.size), let header = OggPageHeader(h) else { return nil }
            let segments = header.segments
            guard let lacing = segments == 0 ? [][...] : bytes(at: offset + 27, count: segments) else { return nil }
            let start = offset + 27 + Int64(segments)
            let end = start + Int64(OggPageHeader.bodySize(lacing: lacing))
            guard end <= size else { return nil }
            return OggPage(granule: header.granule, serial: header.serial, flags: header.flags, lacing: lacing, payload: start..<end)
        }

        /// Adds a page's flags, granule position, segment table and payload to `hash`.
        func add(_ page: OggPage, to hash: inout FNV1a) -> Bool {
            hash.add([page.flags])
            withUnsafeBytes(of: page.granule.littleEndian) { hash.add($0) }
            hash.add(page.lacing)
            guard !page.payload.isEmpty else { return true }
            guard let payload = bytes(at: page.payload.lowerBound, count: page.payload.count) else { return false }
            payload.withUnsafeBytes { hash.addWords($0) }
            return true
        }

        struct Atom {
            var type: String
            var payload: Range<Int64>
        }

        /// The MP4 atoms (boxes) that fill `range` one after another; empty past a malformed one.
        func atoms(in range: Range<Int64>) -> [Atom] {
            var out: [Atom] = []
            var offset = range.lowerBound
            while offset + 8 <= range.upperBound, let header = bytes(at: offset, count: 8) {
                var length = Int64(Self.bigEndian(header[0..<4]))
                var headerLength: Int64 = 8
                if length == 1, let large = bytes(at: offset + 8, count: 8) {
                    length = Int64(bitPattern: large.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                    headerLength = 16
                } else if length == 0 {
                    length = range.upperBound - offset
                }
                // Compared as the room left, not as an end: a 64-bit size near Int64.max would overflow the sum.
                guard length >= headerLength, length <= range.upperBound - offset else { break }
                out.append(Atom(type: String(decoding: header[4..<8], as: UTF8.self),
                                payload: (offset + headerLength)..<(offset + length)))
                offset += length
            }
            return out
        }

        /// Adds an atom's type and payload (at most 16 MiB) to `hash`.
        func add(_ atom: Atom, to hash: inout FNV1a) -> Bool {
            guard atom.payload.count <= 16 << 20 else { return false }
            hash.add(atom.type.utf8)
            guard !atom.payload.isEmpty else { return true }
            guard let payload = bytes(at: atom.payload.lowerBound, count: Int(atom.payload.count)) else { return false }
            payload.withUnsafeBytes { hash.addWords($0) }
            return true
        }

        /// Where the audio that starts at `start` ends: before an ID3v1 tag and an APEv2 tag (with or without
        /// its header) before it, where these formats keep their tags.
        func endBeforeTrailingTags(after start: Int64) -> Int64 {
            var end = size
            if end - 128 > start, let v1 = bytes(at: end - 128, count: 3), Array(v1) == Array("TAG".utf8) { end -= 128 }
            if end - 32 > start, let footer = bytes(at: end - 32, count: 32), Array(footer[0..<8]) == Array("APETAGEX".utf8) {
                let length = Int64(Self.littleEndian(footer[12..<16]))
                let hasHeader = footer[23] & 0x80 != 0
                end -= length + (hasHeader ? 32 : 0)
            }
            return end
        }

        /// The key of a chunk's payload in an IFF-style file (RIFF little-endian sizes, AIFF big-endian).
        func chunk(_ id: String, from start: Int64, bigEndian: Bool) -> String? {
            var offset = start
            while let header = bytes(at: offset, count: 8) {
                let length = Int64(bigEndian ? Self.bigEndian(header[4..<8]) : Self.littleEndian(header[4..<8]))
                if Array(header[0..<4]) == Array(id.utf8) {
                    let payload = offset + 8
                    return regionKey(payload..<min(size, payload + length), spread: 16)
                }
                offset += 8 + length + (length & 1)
            }
            return nil
        }

        /// FNV-1a 64 over the region's size and its first and last 64 KiB, and `spread` blocks of 4 KiB evenly
        /// spaced between them.
        func regionKey(_ region: Range<Int64>, spread: Int = 0) -> String? {
            guard !region.isEmpty, region.upperBound <= size else { return nil }
            var hash = FNV1a()
            withUnsafeBytes(of: Int64(region.count).littleEndian) { hash.add($0) }
            let first = min(Int64(Self.window), Int64(region.count))
            guard let head = bytes(at: region.lowerBound, count: Int(first)) else { return nil }
            head.withUnsafeBytes { hash.addWords($0) }
            if Int64(region.count) > first {
                let tailStart = max(region.lowerBound + first, region.upperBound - Int64(Self.window))
                let middle = (region.lowerBound + first)..<tailStart
                let block: Int64 = 4096
                if spread > 0, Int64(middle.count) >= Int64(spread) * block {
                    let step = Int64(middle.count) / Int64(spread)
                    for i in 0..<Int64(spread) {
                        guard let sample = bytes(at: middle.lowerBound + i * step + (step - block) / 2, count: Int(block)) else { return nil }
                        sample.withUnsafeBytes { hash.addWords($0) }
                    }
                }
                guard let tail = bytes(at: tailStart, count: Int(region.upperBound - tailStart)) else { return nil }
                tail.withUnsafeBytes { hash.addWords($0) }
            }
            return String(format: "a:%016llx", hash.value)
        }

        /// The first index from `start` where an Ogg capture pattern ("OggS") begins.
        static func captureIndex(in bytes: ArraySlice<UInt8>, from start: Int) -> Int? {
            guard bytes.endIndex - start >= 4 else { return nil }
            return (start...(bytes.endIndex - 4)).first {
                bytes[$0] == 0x4F && bytes[$0 + 1] == 0x67 && bytes[$0 + 2] == 0x67 && bytes[$0 + 3] == 0x53
            }
        }

        static func hex(_ bytes: ArraySlice<UInt8>) -> String {
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
        }

        static func littleEndian(_ b: ArraySlice<UInt8>) -> UInt32 {
            b.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }

        /// A little-endian 64-bit size (DSF, ASF), when it is at most `limit` (so adding it to an offset cannot
        /// overflow).
        static func size64(_ b: ArraySlice<UInt8>, limit: Int64) -> Int64? {
            let value = b.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return limit >= 0 && value <= UInt64(limit) ? Int64(value) : nil
        }

        static func bigEndian(_ b: ArraySlice<UInt8>) -> UInt32 {
            b.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
    }
}
