import Foundation
@testable import Library
import TestSupport
import XCTest

/// The audio key follows the audio and ignores the tags around it, byte for byte as taggers lay them out.
final class AudioKeyTests: TemporaryFolderTestCase {

    func key(_ name: String, _ bytes: Data) throws -> String? {
        let path = dir + "/" + name
        try bytes.write(to: URL(fileURLWithPath: path))
        return AudioKey.compute(path: path, size: Int64(bytes.count))
    }

    func encoded(_ format: Synth.FileFormat, _ name: String, frequency: Double = 440) throws -> Data {
        let path = dir + "/source-" + name
        let rate = format == .opus ? 48000 : 44100
        try Synth.write(Synth.sine(frequency: frequency, seconds: 3, sampleRate: rate, amplitude: 0.3), to: path,
                        format: format, sampleRate: rate)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// An ID3v2.4 tag of `body` bytes of frames and padding (syncsafe size).
    func id3v2(body: Int, footer: Bool = false) -> Data {
        var d = Data("ID3".utf8) + Data([4, 0, footer ? 0x10 : 0])
        d += Data([UInt8(body >> 21 & 0x7F), UInt8(body >> 14 & 0x7F), UInt8(body >> 7 & 0x7F), UInt8(body & 0x7F)])
        d += Data("TALB".utf8) + Data(repeating: 0x41, count: body - 4)
        if footer { d += Data("3DI".utf8) + Data(repeating: 0, count: 7) }
        return d
    }

    func id3v1() -> Data { Data("TAG".utf8) + Data(repeating: 0x20, count: 125) }

    /// An APEv2 tag with header and footer around `items` bytes.
    func apev2(items: Int) -> Data {
        func part(_ flags: UInt32) -> Data {
            var d = Data("APETAGEX".utf8)
            for v in [UInt32(2000), UInt32(items + 32), 1, flags] { d += withUnsafeBytes(of: v.littleEndian) { Data($0) } }
            return d + Data(repeating: 0, count: 8)
        }
        return part(0xA000_0000) + Data(repeating: 0x42, count: items) + part(0x8000_0000)
    }

    func testMP3KeyIgnoresID3v2ID3v1AndAPETagsButNotTheFrames() throws {
        let frames = try encoded(.mp3CBR, "a.mp3")
        let bare = try XCTUnwrap(try key("bare.mp3", frames))
        XCTAssertEqual(try key("v2.mp3", id3v2(body: 300) + frames), bare)
        XCTAssertEqual(try key("v2-padded.mp3", id3v2(body: 9000, footer: true) + Data(count: 200) + frames), bare)
        XCTAssertEqual(try key("v1.mp3", id3v2(body: 50) + frames + id3v1()), bare)
        XCTAssertEqual(try key("ape.mp3", frames + apev2(items: 700) + id3v1()), bare)
        // One byte of the last frames changed: other audio.
        var edited = frames
        edited[edited.count - 100] ^= 0x55
        XCTAssertNotEqual(try key("edited.mp3", id3v2(body: 300) + edited), bare)
        // A file that is not MPEG audio behind its tag has no key.
        XCTAssertNil(try key("junk.mp3", id3v2(body: 300) + Data("OggS".utf8) + frames))
        // MP2 and ADTS AAC are framed and tagged the same way.
        for kind in ["mp2", "aac"] {
            XCTAssertEqual(try key("tagged." + kind, id3v2(body: 300) + frames + apev2(items: 80) + id3v1()),
                           try key("bare." + kind, frames), kind)
        }
    }

    func testFLACKeyIsTheStreamMD5WhateverTheMetadata() throws {
        let stream = try encoded(.flac16, "a.flac")
        let bare = try XCTUnwrap(try key("bare.flac", stream))
        XCTAssertTrue(bare.hasPrefix("flac:"), bare)
        // A longer metadata block (a bigger tag) between STREAMINFO and the frames, and a leading ID3v2 tag.
        var retagged = stream
        retagged.insert(contentsOf: Data([0x04, 0, 0x10, 0]) + Data(repeating: 0, count: 4096), at: 42)
        retagged[4] &= 0x7F            // STREAMINFO is no longer the last block
        XCTAssertEqual(try key("retagged.flac", id3v2(body: 100) + retagged), bare)
        XCTAssertEqual(try key("id3v1.flac", stream + id3v1()), bare)
        XCTAssertNotEqual(try key("other.flac", try encoded(.flac16, "b.flac", frequency: 550)), bare)
        // Cut short (a copy over it that failed): STREAMINFO still says what the whole was, the frames do not.
        XCTAssertNotEqual(try key("cut.flac", stream.prefix(stream.count - 1000)), bare)
        // An encoder that left the MD5 unset: the frames after the last metadata block stand for the audio.
        var unset = stream, unsetRetagged = retagged
        unset.replaceSubrange(26..<42, with: Data(count: 16))
        unsetRetagged.replaceSubrange(26..<42, with: Data(count: 16))
        let framesKey = try XCTUnwrap(try key("unset.flac", unset))
        XCTAssertTrue(framesKey.hasPrefix("a:"), framesKey)
        XCTAssertEqual(try key("unset-retagged.flac", unsetRetagged), framesKey)
    }

    func testWAVAndAIFFKeysAreTheirSampleChunks() throws {
        let wav = try encoded(.wav16, "a.wav")
        let bare = try XCTUnwrap(try key("bare.wav", wav))
        XCTAssertEqual(try key("bare.wave", wav), bare)
        // A LIST chunk appended after the data, as taggers add one.
        var tagged = wav + Data("LIST".utf8) + withUnsafeBytes(of: UInt32(12).littleEndian) { Data($0) } + Data("INFOIART".utf8) + Data(count: 4)
        let riffSize = UInt32(tagged.count - 8)
        tagged.replaceSubrange(4..<8, with: withUnsafeBytes(of: riffSize.littleEndian) { Data($0) })
        XCTAssertEqual(try key("tagged.wav", tagged), bare)
        XCTAssertNotEqual(try key("other.wav", try encoded(.wav16, "b.wav", frequency: 550)), bare)
        let aiff = try encoded(.aiff16, "a.aiff")
        XCTAssertNotNil(try key("a.aiff", aiff))
        XCTAssertNotEqual(try key("b.aiff", try encoded(.aiff16, "b.aiff", frequency: 550)), try key("a2.aiff", aiff))
        // RIFX, the big-endian WAVE: its chunk sizes are big-endian too, so a LIST chunk after the data is
        // passed over only when they are read so.
        let rifx = try encoded(.wavBigEndian, "x.wav")
        XCTAssertEqual(Array(rifx.prefix(4)), Array("RIFX".utf8))
        let bareRIFX = try XCTUnwrap(try key("bare-x.wav", rifx))
        var taggedRIFX = rifx + Data("LIST".utf8) + withUnsafeBytes(of: UInt32(12).bigEndian) { Data($0) } + Data("INFOIART".utf8) + Data(count: 4)
        taggedRIFX.replaceSubrange(4..<8, with: withUnsafeBytes(of: UInt32(taggedRIFX.count - 8).bigEndian) { Data($0) })
        XCTAssertEqual(try key("tagged-x.wav", taggedRIFX), bareRIFX)
        XCTAssertNotEqual(try key("other-x.wav", try encoded(.wavBigEndian, "y.wav", frequency: 550)), bareRIFX)
        // PCM changed in place at its size (normalize-audio, wavegain), between ends that stayed as they were
        // (silence): a few samples of the middle differ, and so does the key.
        var louder = wav
        let middle = wav.count / 2
        for i in stride(from: middle - 100_000, to: middle + 100_000, by: 2) { louder[i] ^= 0x10 }
        XCTAssertEqual(louder.prefix(70_000), wav.prefix(70_000))
        XCTAssertEqual(louder.suffix(70_000), wav.suffix(70_000))
        XCTAssertNotEqual(try key("louder.wav", louder), bare)
    }

    /// An MP4 box: 32-bit size, type, payload.
    func box(_ type: String, _ payload: Data) -> Data {
        withUnsafeBytes(of: UInt32(8 + payload.count).bigEndian) { Data($0) } + Data(type.utf8) + payload
    }

    func mp4(moovFirst: Bool, tags: Int, stts: UInt8 = 1, samples: Data) -> Data {
        let stbl = box("stbl", box("stsd", Data(repeating: 7, count: 40)) + box("stts", Data([0, 0, 0, stts]))
                       + box("stco", Data(repeating: moovFirst ? UInt8(tags & 0xFF) : 0, count: 8)))
        let trak = box("trak", box("edts", box("elst", Data(repeating: 3, count: 12)))
                       + box("mdia", box("minf", stbl)))
        let moov = box("moov", trak + box("udta", Data(repeating: 0x41, count: tags)))
        let ftyp = box("ftyp", Data("M4A ".utf8) + Data(count: 4))
        return moovFirst ? ftyp + moov + box("mdat", samples) : ftyp + box("mdat", samples) + moov
    }

    func testMP4KeyIsTheSamplesAndTheirTablesNotTheTagsOrChunkOffsets() throws {
        let samples = try encoded(.wav16, "samples.wav")
        let bare = try XCTUnwrap(try key("a.m4a", mp4(moovFirst: true, tags: 10, samples: samples)))
        XCTAssertEqual(try key("b.m4a", mp4(moovFirst: true, tags: 5000, samples: samples)), bare)
        XCTAssertEqual(try key("c.m4a", mp4(moovFirst: false, tags: 77, samples: samples)), bare)
        // Other sample timing (a table the decoder reads), or other samples: other audio.
        XCTAssertNotEqual(try key("d.m4a", mp4(moovFirst: true, tags: 10, stts: 2, samples: samples)), bare)
        var edited = samples
        edited[edited.count - 10] ^= 0x55
        XCTAssertNotEqual(try key("e.m4a", mp4(moovFirst: true, tags: 10, samples: edited)), bare)
    }

    /// An MP4 atom with a 64-bit size (size field 1, then the "largesize") near the largest Int64: the walk
    /// compared its end with the parent's, and the sum trapped, ending the whole scan on one corrupt file.
    func testAnMP4AtomClaimingANearlyInfiniteSizeEndsTheWalkWithoutTrapping() throws {
        func huge(_ type: String, _ declared: UInt64) -> Data {
            Data([0, 0, 0, 1]) + Data(type.utf8) + withUnsafeBytes(of: declared.bigEndian) { Data($0) }
        }
        let samples = Data(repeating: 3, count: 5000)
        let stbl = box("stbl", box("stsd", Data(repeating: 7, count: 40)) + box("stts", Data([0, 0, 0, 1])))
        let trak = box("trak", box("mdia", box("minf", stbl)))
        let ftyp = box("ftyp", Data("M4A ".utf8) + Data(count: 4))
        for declared in [UInt64(Int64.max), UInt64(Int64.max) - 7, UInt64(Int64.max) - 100_000] {
            // At the top level, before `mdat`: the walk stops there, so there are no samples to key.
            XCTAssertNil(try key("top.m4a", ftyp + huge("free", declared) + box("mdat", samples) + box("moov", trak)))
            // Inside `moov` and inside `stbl`: the samples are found, the tables read up to the bad atom.
            let inMoov = ftyp + box("mdat", samples) + box("moov", huge("free", declared) + trak)
            XCTAssertNotNil(try key("moov.m4a", inMoov))
            let badTable = box("trak", box("mdia", box("minf", box("stbl", box("stsd", Data(repeating: 7, count: 40))
                                                                       + huge("stts", declared)))))
            XCTAssertNotNil(try key("stbl.m4a", ftyp + box("mdat", samples) + box("moov", badTable)))
        }
    }

    /// Offsets of the Ogg pages of `data`, in order.
    func oggPages(_ data: Data) -> [Int] {
        var offsets: [Int] = []
        var at = 0
        while at + 27 <= data.count {
            offsets.append(at)
            let segments = Int(data[at + 26])
            at += 27 + segments + data[(at + 27)..<(at + 27 + segments)].reduce(0) { $0 + Int($1) }
        }
        return offsets
    }

    func testOggKeyIgnoresCommentsAndPageNumbersButNotTheHeadersTheDecoderReads() throws {
        for (format, name) in [(Synth.FileFormat.opus, "a.opus"), (.oggVorbis, "a.ogg")] {
            let stream = try encoded(format, name)
            let bare = try XCTUnwrap(try key("bare-" + name, stream), name)
            let pages = oggPages(stream)
            XCTAssertGreaterThan(pages.count, 3, name)
            // What a tagger does: other comments, every later page renumbered with a new checksum.
            var retagged = stream
            let comments = pages[1] + 27 + Int(stream[pages[1] + 26])
            retagged[comments + 12] ^= 0x20
            for page in pages.dropFirst(2) {
                retagged[page + 18] &+= 1
                retagged[page + 22] ^= 0xFF
            }
            XCTAssertEqual(try key("retagged-" + name, retagged), bare, name)
            // The identification header (for Opus its output gain, which scales the decoded audio): other audio.
            var gain = stream
            gain[27 + Int(stream[26]) + (format == .opus ? 16 : 12)] ^= 0x10
            XCTAssertNotEqual(try key("gain-" + name, gain), bare, name)
            var edited = stream
            edited[edited.count - 20] ^= 0x55
            XCTAssertNotEqual(try key("edited-" + name, edited), bare, name)
        }
    }

    /// One Ogg page of whole packets (each under 255 × 255 bytes); the checksum is left zero, as the key never reads it.
    func oggPage(sequence: UInt32, flags: UInt8 = 0, granule: UInt64 = 0, _ packets: [Data]) -> Data {
        var lacing: [UInt8] = []
        for packet in packets {
            lacing += [UInt8](repeating: 255, count: packet.count / 255) + [UInt8(packet.count % 255)]
        }
        var page = Data("OggS".utf8) + Data([0, flags])
        page += withUnsafeBytes(of: granule.littleEndian) { Data($0) } + Data([7, 7, 7, 7])
        page += withUnsafeBytes(of: sequence.littleEndian) { Data($0) } + Data(count: 4)
        return page + Data([UInt8(lacing.count)] + lacing) + packets.reduce(Data(), +)
    }

    /// FLAC in Ogg as libFLAC writes it: the mapping's first packet with STREAMINFO, one packet per metadata
    /// block (`metadata` bytes of comments, then `pictures` more blocks), then pages of frames.
    func oggFLAC(md5: UInt8, metadata: Int, pictures: Int = 0, audio: [UInt8]) -> Data {
        var first = Data([0x7F]) + Data("FLAC".utf8) + Data([1, 0, 0, UInt8(1 + pictures)]) + Data("fLaC".utf8)
        first += Data([0, 0, 0, 34]) + Data([0x10, 0, 0x10, 0, 0, 0, 0, 0, 0, 0]) + Data([0x0A, 0xC4, 0x42, 0xF0, 0, 0, 0xAC, 0x44])
        first += Data(repeating: md5, count: 16)
        var headers = [Data([pictures == 0 ? 0x84 : 0x04, 0, UInt8(metadata >> 8), UInt8(metadata & 0xFF)]) + Data(repeating: 0x41, count: metadata)]
        for p in 0..<pictures {
            headers.append(Data([p == pictures - 1 ? 0x86 : 0x06, 0, 1, 0]) + Data(repeating: 0x50, count: 256))
        }
        var stream = oggPage(sequence: 0, flags: 2, [first]) + oggPage(sequence: 1, headers)
        for (i, byte) in audio.enumerated() {
            stream += oggPage(sequence: UInt32(2 + pictures + i), flags: i == audio.count - 1 ? 4 : 0, granule: UInt64(4096 * (i + 1)),
                              [Data([0xFF, 0xF8]) + Data(repeating: byte, count: 3000)])
        }
        return stream
    }

    // FLAC in Ogg had no audio key: a tag edit (Picard, `spindle tags`) sent it to be decoded and analysed again.
    func testOggFLACKeyIsStreamInfoWhateverTheMetadata() throws {
        let audio: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let withMD5 = try XCTUnwrap(try key("md5.oga", oggFLAC(md5: 0x5A, metadata: 40, audio: audio)))
        XCTAssertTrue(withMD5.hasPrefix("oggflac:"), withMD5)
        XCTAssertEqual(try key("md5-retagged.oga", oggFLAC(md5: 0x5A, metadata: 900, pictures: 2, audio: audio)), withMD5)
        XCTAssertNotEqual(try key("md5-other.oga", oggFLAC(md5: 0x5B, metadata: 40, audio: audio)), withMD5)
        let whole = oggFLAC(md5: 0x5A, metadata: 40, audio: audio)
        XCTAssertNotEqual(try key("md5-cut.oga", whole.prefix(whole.count - 3000)), withMD5, "cut short")
        // Without the MD5, the audio pages are the key, and the metadata blocks (and their count) still are not.
        let bare = try XCTUnwrap(try key("bare.oga", oggFLAC(md5: 0, metadata: 40, audio: audio)))
        XCTAssertEqual(try key("retagged.oga", oggFLAC(md5: 0, metadata: 900, pictures: 2, audio: audio)), bare)
        XCTAssertNotEqual(try key("edited.oga", oggFLAC(md5: 0, metadata: 40, audio: audio.dropLast() + [9])), bare)
        XCTAssertNotEqual(bare, withMD5)
    }

    func testContainersWithoutAnAudioKey() throws {
        // FLAC in Ogg whose first packet does not say how many headers follow (0: unknown) has none.
        var page = Data("OggS".utf8) + Data([0, 2]) + Data(count: 20) + Data([1, 51])
        page += Data([0x7F]) + Data("FLAC".utf8) + Data([1, 0, 0, 0]) + Data("fLaC".utf8) + Data([0, 0, 0, 34]) + Data(count: 34)
        XCTAssertNil(try key("flac.oga", page))
        // Nor one whose first packet never ends (every lacing value 255, to the end of the file).
        var endless = Data()
        for _ in 0..<4 {
            endless += Data("OggS".utf8) + Data([0, 0]) + Data(count: 20) + Data([255]) + Data(repeating: 255, count: 255)
            endless += Data("OpusHead".utf8) + Data(repeating: 1, count: 255 * 255 - 8)
        }
        XCTAssertNil(try key("endless.opus", endless))
        XCTAssertFalse(AudioKey.applies(to: "x/y.mka"))
        XCTAssertTrue(AudioKey.applies(to: "x/y.wma"))
        XCTAssertTrue(AudioKey.applies(to: "x/Y.FLAC"))
        XCTAssertTrue(AudioKey.applies(to: "x/y.wv"))
    }

    /// WavPack, Monkey's Audio, Musepack and TTA keep their tags as MP3 does at the end (APEv2, ID3v1): the key
    /// starts at the stream's magic and stops before them. The stream itself is not parsed, so bytes behind the
    /// right magic stand in for an encoder here.
    func testAPETaggedFormatsKeyTheirStreamWithoutTheTags() throws {
        var rng = SplitMix(seed: 5)
        let payload = Data((0..<200_000).map { _ in UInt8(truncatingIfNeeded: Int(rng.unit() * 256)) })
        for (name, magic) in [("a.wv", "wvpk"), ("a.ape", "MAC "), ("a.mpc", "MPCK"), ("b.mpc", "MP+\u{7}"), ("a.tta", "TTA1")] {
            let stream = Data(magic.utf8) + payload
            let bare = try XCTUnwrap(try key("bare-" + name, stream), name)
            XCTAssertEqual(try key("ape-" + name, stream + apev2(items: 900)), bare, name)
            XCTAssertEqual(try key("both-" + name, stream + apev2(items: 40) + id3v1()), bare, name)
            XCTAssertEqual(try key("id3-" + name, id3v2(body: 500) + stream + id3v1()), bare, name)
            var edited = stream
            edited[edited.count - 7] ^= 0x55
            XCTAssertNotEqual(try key("edited-" + name, edited + apev2(items: 900)), bare, name)
            // Another format's stream under this name has none.
            XCTAssertNil(try key("junk-" + name, Data("OggS".utf8) + payload), name)
        }
    }

    /// A DSF file's ID3v2 tag sits at the end, where its header points; a DSDIFF file's tags are chunks (`ID3 `,
    /// `DIIN`, `COMT`) beside the sound data. Retagging either leaves the key.
    func testDSDKeysAreTheirSoundDataAndFormatNotTheTags() throws {
        let tone = Synth.dsdSine(frequency: 440, seconds: 0.5, amplitude: 0.25)
        let other = Synth.dsdSine(frequency: 550, seconds: 0.5, amplitude: 0.25)
        func dsf(_ channels: [[UInt8]], _ tags: [String: String]) throws -> Data {
            try Synth.writeDSF(channels, to: dir + "/source.dsf", tags: tags)
            return try Data(contentsOf: URL(fileURLWithPath: dir + "/source.dsf"))
        }
        let bare = try XCTUnwrap(try key("a.dsf", try dsf([tone, tone], [:])))
        XCTAssertEqual(try key("b.dsf", try dsf([tone, tone], ["TIT2": "A title", "TALB": String(repeating: "x", count: 3000)])), bare)
        XCTAssertNotEqual(try key("c.dsf", try dsf([tone, other], ["TIT2": "A title"])), bare)
        XCTAssertNotEqual(try key("mono.dsf", try dsf([tone], [:])), bare)
        // A chunk size near 2^63 (crafted or corrupt) once overflowed the walk's offset: a trap in the scan.
        var huge = try dsf([tone, tone], [:])
        huge.replaceSubrange(32..<40, with: withUnsafeBytes(of: UInt64(0x7FFF_FFFF_FFFF_FFF0).littleEndian) { Data($0) })
        XCTAssertNil(try key("huge.dsf", huge))

        try Synth.writeDFF([tone, tone], to: dir + "/source.dff")
        let dff = try Data(contentsOf: URL(fileURLWithPath: dir + "/source.dff"))
        let plain = try XCTUnwrap(try key("a.dff", dff))
        // A tagger appends an `ID3 ` chunk to the form and grows the form's size.
        let id3 = id3v2(body: 700)
        var tagged = dff + Data("ID3 ".utf8) + withUnsafeBytes(of: UInt64(id3.count).bigEndian) { Data($0) } + id3
        tagged.replaceSubrange(4..<12, with: withUnsafeBytes(of: UInt64(tagged.count - 12).bigEndian) { Data($0) })
        XCTAssertEqual(try key("tagged.dff", tagged), plain)
        var edited = dff
        edited[edited.count - 3] ^= 0x55
        XCTAssertNotEqual(try key("edited.dff", edited), plain)
        try Synth.writeDFF([tone], to: dir + "/mono.dff")
        XCTAssertNotEqual(try key("mono.dff", try Data(contentsOf: URL(fileURLWithPath: dir + "/mono.dff"))), plain)
    }

    /// An ASF (WMA) file as muxers and taggers lay it out: the Header Object (File Properties, Stream
    /// Properties, Content Description, padding) and then the Data Object with the packets.
    func asf(packets: Data, stream: Data = Data(repeating: 7, count: 90), tags: Int = 40, fileSize: UInt64 = 1234) -> Data {
        func guid(_ bytes: [UInt8]) -> Data { Data(bytes) }
        func object(_ id: [UInt8], _ payload: Data) -> Data {
            guid(id) + withUnsafeBytes(of: UInt64(24 + payload.count).littleEndian) { Data($0) } + payload
        }
        let fileProperties = object([0xA1, 0xDC, 0xAB, 0x8C, 0x47, 0xA9, 0xCF, 0x11, 0x8E, 0xE4, 0x00, 0xC0, 0x0C, 0x20, 0x53, 0x65],
                                    Data(repeating: 1, count: 16) + withUnsafeBytes(of: fileSize.littleEndian) { Data($0) } + Data(repeating: 2, count: 64))
        let streamProperties = object([0x91, 0x07, 0xDC, 0xB7, 0xB7, 0xA9, 0xCF, 0x11, 0x8E, 0xE6, 0x00, 0xC0, 0x0C, 0x20, 0x53, 0x65], stream)
        let description = object([0x33, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C],
                                 Data(repeating: 0x41, count: tags))
        let children = fileProperties + streamProperties + description
        var header = guid([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C])
        header += withUnsafeBytes(of: UInt64(30 + children.count).littleEndian) { Data($0) } + Data([3, 0, 0, 0, 1, 2]) + children
        let data = object([0x36, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C],
                          Data(repeating: 9, count: 26) + packets)
        return header + data
    }

    /// Taggers rewrite an ASF file's Header Object (its tags, and with them the file size it records); the
    /// packets in the Data Object and the codec's parameters in the Stream Properties stay as they were.
    func testASFKeyIsItsPacketsAndCodecNotTheHeaderTaggersRewrite() throws {
        var rng = SplitMix(seed: 6)
        let packets = Data((0..<150_000).map { _ in UInt8(truncatingIfNeeded: Int(rng.unit() * 256)) })
        let bare = try XCTUnwrap(try key("a.wma", asf(packets: packets)))
        XCTAssertEqual(try key("b.wma", asf(packets: packets, tags: 40_000, fileSize: 99_999)), bare)
        var edited = packets
        edited[edited.count - 100] ^= 0x55
        XCTAssertNotEqual(try key("c.wma", asf(packets: edited)), bare)
        XCTAssertNotEqual(try key("d.wma", asf(packets: packets, stream: Data(repeating: 8, count: 90))), bare)
        // A Data Object announcing more than the file holds, or none after the header: no key.
        XCTAssertNil(try key("e.wma", asf(packets: packets).prefix(60_000)))
        let empty = asf(packets: Data())
        XCTAssertNotNil(try key("f.wma", empty))
        XCTAssertNil(try key("g.wma", empty.prefix(empty.count - 50)))
    }

    /// The scan computes audio keys in the supervisor, where a trap would end the whole run: corrupt headers
    /// (sizes that overflow, point past the end or loop, truncated files) give a key or none, never a crash.
    func testCorruptFilesNeverTrap() throws {
        let tone = Synth.dsdSine(frequency: 440, seconds: 0.05, amplitude: 0.25)
        try Synth.writeDSF([tone, tone], to: dir + "/seed.dsf", tags: ["TIT2": "x"])
        try Synth.writeDFF([tone, tone], to: dir + "/seed.dff")
        let stream = Data("wvpk".utf8) + Data(repeating: 0x11, count: 3000)
        var seeds: [(String, Data)] = [
            ("mp3", id3v2(body: 100) + (try encoded(.mp3CBR, "s.mp3")) + apev2(items: 40) + id3v1()),
            ("flac", id3v2(body: 50) + (try encoded(.flac16, "s.flac"))),
            ("wav", try encoded(.wav16, "s.wav")), ("aiff", try encoded(.aiff16, "s.aiff")),
            ("ogg", try encoded(.oggVorbis, "s.ogg")), ("opus", try encoded(.opus, "s.opus")),
            ("m4a", mp4(moovFirst: true, tags: 30, samples: Data(repeating: 3, count: 5000))),
            ("wv", stream + apev2(items: 64) + id3v1()),
            ("dsf", try Data(contentsOf: URL(fileURLWithPath: dir + "/seed.dsf"))),
            ("dff", try Data(contentsOf: URL(fileURLWithPath: dir + "/seed.dff"))),
            ("wma", asf(packets: Data(repeating: 5, count: 3000), tags: 200)),
        ]
        seeds = seeds.map { ($0.0, Data($0.1.prefix(40_000) + $0.1.suffix(2_000))) }
        var rng = SplitMix(seed: 99)
        func random(_ n: Int) -> Int { Int(rng.unit() * Double(n)) }
        var keyed = 0
        for (kind, seed) in seeds {
            for trial in 0..<300 {
                var bytes = seed
                for _ in 0..<(1 + random(4)) {
                    // Near either end, where headers and tags live: a random byte, or a run of 0xFF / 0x00
                    // (the largest and the smallest sizes), or the file cut short.
                    let at = random(2) == 0 ? random(min(200, bytes.count)) : max(0, bytes.count - 1 - random(min(200, bytes.count)))
                    switch random(4) {
                    case 0: bytes[at] = UInt8(random(256))
                    case 1: for i in at..<min(bytes.count, at + 8) { bytes[i] = 0xFF }
                    case 2: for i in at..<min(bytes.count, at + 8) { bytes[i] = 0 }
                    default: bytes = bytes.prefix(max(1, at))
                    }
                }
                if try key("fuzz\(trial).\(kind)", bytes) != nil { keyed += 1 }
            }
        }
        // Most mutations leave the headers readable: the corrupt files still reach the parsers' deeper paths.
        XCTAssertGreaterThan(keyed, 550)
    }
}
