import Foundation

/// DSD files (DSF, DSDIFF) written from scratch: no tool on the machine encodes DSD, and libsndfile reads
/// none of it, so these are what shows that FFmpeg's decoder and the container tag reader handle them.
extension Synth {
    /// DSD64's bit rate.
    public static let dsd64Rate = 2_822_400

    /// One channel of a sine as DSD64 bits (a second-order sigma-delta modulator), packed eight to a byte,
    /// least significant bit first (DSF's order).
    public static func dsdSine(frequency: Double, seconds: Double, amplitude: Double) -> [UInt8] {
        let count = Int(seconds * Double(dsd64Rate))
        var bytes = [UInt8](repeating: 0, count: (count + 7) / 8)
        var first = 0.0, second = 0.0, previous = 0.0
        let step = 2 * Double.pi * frequency / Double(dsd64Rate)
        for k in 0..<count {
            let x = amplitude * sin(step * Double(k))
            first += x - previous
            second += first - previous
            previous = second >= 0 ? 1 : -1
            if previous > 0 { bytes[k / 8] |= UInt8(1 << (k % 8)) }
        }
        return bytes
    }

    /// A DSF file of `channels` (each from `dsdSine`), with an ID3v2.4 tag of `tags` (frame id → text;
    /// "TXXX:DESC" for a user text frame) when given.
    public static func writeDSF(_ channels: [[UInt8]], to path: String, tags: [String: String] = [:]) throws {
        let block = 4096
        let bytesPerChannel = channels[0].count
        let padded = (bytesPerChannel + block - 1) / block * block
        var data = Data()
        for start in stride(from: 0, to: padded, by: block) {
            for channel in channels {
                let end = min(bytesPerChannel, start + block)
                if start < end { data.append(contentsOf: channel[start..<end]) }
                data.append(contentsOf: [UInt8](repeating: 0, count: block - max(0, end - start)))
            }
        }
        let id3 = tags.isEmpty ? Data() : id3v24(tags)
        let audioEnd = 28 + 52 + 12 + data.count
        var file = Data()
        file.append(contentsOf: Array("DSD ".utf8)); file.appendLE(UInt64(28))
        file.appendLE(UInt64(audioEnd + id3.count)); file.appendLE(UInt64(id3.isEmpty ? 0 : audioEnd))
        file.append(contentsOf: Array("fmt ".utf8)); file.appendLE(UInt64(52))
        file.appendLE(UInt32(1)); file.appendLE(UInt32(0))                       // version, DSD raw
        file.appendLE(UInt32(channels.count == 1 ? 1 : 2)); file.appendLE(UInt32(channels.count))
        file.appendLE(UInt32(dsd64Rate)); file.appendLE(UInt32(1))               // rate, bits per sample
        file.appendLE(UInt64(bytesPerChannel * 8)); file.appendLE(UInt32(block)); file.appendLE(UInt32(0))
        file.append(contentsOf: Array("data".utf8)); file.appendLE(UInt64(12 + data.count))
        file.append(data)
        file.append(id3)
        try file.write(to: URL(fileURLWithPath: path))
    }

    /// A DSDIFF (.dff) file of the same channels: bytes interleaved, most significant bit first.
    public static func writeDFF(_ channels: [[UInt8]], to path: String) throws {
        func chunk(_ id: String, _ body: Data) -> Data {
            var d = Data(id.utf8)
            d.appendBE(UInt64(body.count))
            d.append(body)
            if body.count % 2 == 1 { d.append(0) }
            return d
        }
        var reversed = [UInt8](repeating: 0, count: 256)
        for i in 0..<256 {
            var r = 0
            for bit in 0..<8 where i & (1 << bit) != 0 { r |= 1 << (7 - bit) }
            reversed[i] = UInt8(r)
        }
        var audio = Data(capacity: channels[0].count * channels.count)
        for i in 0..<channels[0].count { for channel in channels { audio.append(reversed[Int(channel[i])]) } }
        var rate = Data(); rate.appendBE(UInt32(dsd64Rate))
        var layout = Data(); layout.appendBE(UInt16(channels.count))
        layout.append(contentsOf: Array((channels.count == 1 ? "C   " : "SLFTSRGT").utf8))
        var compression = Data("DSD ".utf8); compression.append(14); compression.append(contentsOf: Array("not compressed".utf8))
        let properties = Data("SND ".utf8) + chunk("FS  ", rate) + chunk("CHNL", layout) + chunk("CMPR", compression)
        var version = Data(); version.appendBE(UInt32(0x0105_0000))
        let form = Data("DSD ".utf8) + chunk("FVER", version) + chunk("PROP", properties) + chunk("DSD ", audio)
        try chunk("FRM8", form).write(to: URL(fileURLWithPath: path))
    }

    /// An ID3v2.4 tag of UTF-8 text frames.
    static func id3v24(_ tags: [String: String]) -> Data {
        func syncsafe(_ n: Int) -> [UInt8] { [UInt8((n >> 21) & 0x7F), UInt8((n >> 14) & 0x7F), UInt8((n >> 7) & 0x7F), UInt8(n & 0x7F)] }
        var frames = Data()
        for (id, text) in tags.sorted(by: { $0.key < $1.key }) {
            var body = Data([3])                                                  // UTF-8
            let frameId: String
            if id.hasPrefix("TXXX:") {
                frameId = "TXXX"
                body.append(contentsOf: Array(id.dropFirst(5).utf8)); body.append(0)
            } else {
                frameId = id
            }
            body.append(contentsOf: Array(text.utf8))
            frames.append(contentsOf: Array(frameId.utf8)); frames.append(contentsOf: syncsafe(body.count))
            frames.append(contentsOf: [0, 0]); frames.append(body)
        }
        return Data(Array("ID3".utf8) + [4, 0, 0] + syncsafe(frames.count)) + frames
    }
}

extension Data {
    mutating func appendLE<T: FixedWidthInteger>(_ v: T) { Swift.withUnsafeBytes(of: v.littleEndian) { append(contentsOf: $0) } }
    mutating func appendBE<T: FixedWidthInteger>(_ v: T) { Swift.withUnsafeBytes(of: v.bigEndian) { append(contentsOf: $0) } }
}
