import Foundation

/// What a file's decoded audio is, reduced to something comparable: the stream's format, the number of
/// frames decoded, whether decoding stopped on damage, and a 64-bit hash over every sample's bits.
/// Two files with equal digests decode to the same audio; a tag write compares the edited copy's digest
/// with the original's before the copy may replace it.
public struct AudioDigest: Sendable, Equatable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int
    public var frames: Int64
    public var hash: UInt64
    public var damaged: Bool

    public var description: String {
        "\(frames) frames at \(sampleRate) Hz × \(channels)\(damaged ? " (damaged)" : ""), hash \(String(hash, radix: 16))"
    }

    public static func of(path: String) throws -> AudioDigest {
        let decoder = try AudioDecoders.open(path: path)
        let channels = decoder.format.channels
        let chunk = 8192
        var buffer = [Float](repeating: 0, count: chunk * channels)
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15
        var frames: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { decoder.read(into: $0.baseAddress!, frames: chunk) }
            if n == 0 { break }
            frames += Int64(n)
            buffer.withUnsafeBufferPointer { samples in
                for i in 0..<(n * channels) {
                    // A multiply-rotate mix per sample: order-sensitive and cheap next to decoding.
                    hash = (hash ^ UInt64(samples[i].bitPattern)) &* 0x100_0000_01B3
                    hash = (hash << 29) | (hash >> 35)
                }
            }
        }
        return AudioDigest(sampleRate: decoder.format.sampleRate, channels: channels, frames: frames, hash: hash,
                           damaged: decoder.damage != nil)
    }
}
