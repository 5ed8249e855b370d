import Foundation

/// Shorten files written from scratch: live-music archives (etree) hold them, Navidrome serves them and FFmpeg
/// decodes them, but no tool on the machine encodes them.
extension Synth {
    /// A Shorten (version 2) file of 16-bit interleaved `samples`: the WAV header carried verbatim, as Shorten
    /// keeps it, then each block of each channel as plain residuals (no prediction), Rice-coded.
    public static func writeShorten(_ samples: [Int16], channels: Int, sampleRate: Int, to path: String) throws {
        var bits = RiceBits()
        let frames = samples.count / channels
        let dataBytes = samples.count * 2
        var wav = Data("RIFF".utf8) + le32(36 + dataBytes) + Data("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(channels)
        wav += le32(sampleRate) + le32(sampleRate * channels * 2) + le16(channels * 2) + le16(16) + Data("data".utf8) + le32(dataBytes)
        // Stream type 5 (signed 16-bit, little-endian), channels, block size, no LPC, no running mean, no skip.
        var blockSize = 256
        for value in [5, channels, blockSize, 0, 0, 0] { bits.unsignedLong(value) }
        bits.unsigned(9, k: 2)                                 // FN_VERBATIM: the WAV header
        bits.unsigned(wav.count, k: 5)
        for byte in wav { bits.unsigned(Int(byte), k: 8) }
        let energy = 12
        for start in stride(from: 0, to: frames, by: 256) {
            let count = min(256, frames - start)
            if count != blockSize {
                bits.unsigned(5, k: 2)                         // FN_BLOCKSIZE
                bits.unsignedLong(count)
                blockSize = count
            }
            for c in 0..<channels {
                bits.unsigned(0, k: 2)                         // FN_DIFF0: the samples themselves
                bits.unsigned(energy, k: 3)
                for f in start..<start + count { bits.signed(Int(samples[f * channels + c]), k: energy) }
            }
        }
        bits.unsigned(4, k: 2)                                 // FN_QUIT
        try (Data("ajkg".utf8) + Data([2]) + bits.finished()).write(to: URL(fileURLWithPath: path))
    }

    private static func le16(_ v: Int) -> Data { Data([UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]) }
    private static func le32(_ v: Int) -> Data { Data((0..<4).map { UInt8(v >> (8 * $0) & 0xFF) }) }
}

/// Shorten's variable-length codes, most significant bit first.
private struct RiceBits {
    private var bytes = [UInt8]()
    private var current: UInt8 = 0
    private var used = 0

    private mutating func bit(_ b: Int) {
        current = current << 1 | UInt8(b & 1)
        used += 1
        if used == 8 { bytes.append(current); current = 0; used = 0 }
    }

    /// `value >> k` in unary (zeros, then a one), then its low `k` bits.
    mutating func unsigned(_ value: Int, k: Int) {
        for _ in 0..<(value >> k) { bit(0) }
        bit(1)
        for i in stride(from: k - 1, through: 0, by: -1) { bit(value >> i) }
    }

    mutating func signed(_ value: Int, k: Int) { unsigned(value >= 0 ? value << 1 : (-value << 1) - 1, k: k + 1) }

    /// A header value: its bit length (2-bit code), then the value in that many bits.
    mutating func unsignedLong(_ value: Int) {
        let width = max(1, Int.bitWidth - value.leadingZeroBitCount)
        unsigned(width, k: 2)
        unsigned(value, k: width)
    }

    mutating func finished() -> Data {
        while used != 0 { bit(0) }
        return Data(bytes)
    }
}
