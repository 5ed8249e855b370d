import CSndfile
import Foundation
import Similarity

/// Synthesized test audio: signals are generated here and written with libsndfile, so the suite
/// needs no binary fixtures.
public enum Synth {
    /// A sine of `seconds` at `frequency` and peak `amplitude` (linear), identical on every channel.
    public static func sine(frequency: Double, seconds: Double, sampleRate: Int = 44100, channels: Int = 2,
                            amplitude: Double = 0.5) -> [Float] {
        let frames = Int((seconds * Double(sampleRate)).rounded())
        var out = [Float](repeating: 0, count: frames * channels)
        let w = 2 * Double.pi * frequency / Double(sampleRate)
        for i in 0..<frames {
            let v = Float(amplitude * sin(w * Double(i)))
            for c in 0..<channels { out[i * channels + c] = v }
        }
        return out
    }

    /// Digital silence.
    public static func silence(seconds: Double, sampleRate: Int = 44100, channels: Int = 2) -> [Float] {
        [Float](repeating: 0, count: Int((seconds * Double(sampleRate)).rounded()) * channels)
    }

    /// Uniform white noise with the given RMS in dBFS, from a fixed seed.
    public static func noise(seconds: Double, rmsDBFS: Double, sampleRate: Int = 44100, channels: Int = 2,
                             seed: UInt64 = 1) -> [Float] {
        var rng = SplitMix(seed: seed)
        let amplitude = pow(10, rmsDBFS / 20) * 3.0.squareRoot()
        let count = Int((seconds * Double(sampleRate)).rounded()) * channels
        return (0..<count).map { _ in Float((rng.nextUnit() * 2 - 1) * amplitude) }
    }

    /// Short decaying noise-burst clicks at `bpm`, first click at `offset` seconds.
    public static func clicks(bpm: Double, seconds: Double, offset: Double = 0, sampleRate: Int = 44100,
                              channels: Int = 2, accentEvery: Int = 4) -> [Float] {
        let frames = Int(seconds * Double(sampleRate))
        var out = [Float](repeating: 0, count: frames * channels)
        var rng = SplitMix(seed: 42)
        let period = 60.0 / bpm * Double(sampleRate)
        let clickLength = Int(0.03 * Double(sampleRate))
        var beat = 0
        while true {
            let start = Int((offset * Double(sampleRate) + Double(beat) * period).rounded())
            if start >= frames { break }
            let gain = beat % accentEvery == 0 ? 0.9 : 0.6
            for j in 0..<min(clickLength, frames - start) {
                let env = exp(-Double(j) / (0.004 * Double(sampleRate)))
                let v = Float(gain * env * (rng.nextUnit() * 2 - 1))
                for c in 0..<channels { out[(start + j) * channels + c] += v }
            }
            beat += 1
        }
        return out
    }

    /// Concatenates interleaved buffers of the same channel count.
    public static func concat(_ parts: [Float]...) -> [Float] { parts.flatMap { $0 } }

    public enum FileFormat: Sendable {
        case wav16, wav32, wavFloat, wavBigEndian, wavGSM, flac16, flac24, oggVorbis, opus, mp3VBR, mp3CBR, aiff16
        /// WAVE_FORMAT_EXTENSIBLE, and Core Audio Format: files that state their channel layout.
        case wavex16, caf16

        var sndfileFormat: Int32 {
            switch self {
            case .wav16: return Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
            case .wav32: return Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_32)
            case .wavFloat: return Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)
            // RIFX: WAVE with big-endian sizes and samples.
            case .wavBigEndian: return Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16 | SF_ENDIAN_BIG)
            // GSM 06.10 speech coding (mono), as old voice recorders and telephony tools wrote it.
            case .wavGSM: return Int32(SF_FORMAT_WAV | SF_FORMAT_GSM610)
            case .flac16: return Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
            case .flac24: return Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_24)
            case .oggVorbis: return Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
            case .opus: return Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
            case .mp3VBR, .mp3CBR: return Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
            case .aiff16: return Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_16)
            case .wavex16: return Int32(SF_FORMAT_WAVEX | SF_FORMAT_PCM_16)
            case .caf16: return Int32(SF_FORMAT_CAF | SF_FORMAT_PCM_16)
            }
        }
    }

    public struct WriteError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes interleaved samples with libsndfile; `channelMap` (SF_CHANNEL_MAP_* per channel) states the layout
    /// in the formats that carry one (`wavex16`, `caf16`).
    public static func write(_ samples: [Float], to path: String, format: FileFormat, sampleRate: Int = 44100,
                             channels: Int = 2, channelMap: [Int32]? = nil) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = format.sndfileFormat
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw WriteError(description: "sf_open(\(path)): \(String(cString: sf_strerror(nil)))")
        }
        if var map = channelMap {
            let stated = map.withUnsafeMutableBytes {
                sf_command(file, Int32(SFC_SET_CHANNEL_MAP_INFO), $0.baseAddress, Int32($0.count))
            }
            guard stated == SF_TRUE else {
                sf_close(file)
                throw WriteError(description: "libsndfile cannot state a channel layout in \(path)")
            }
        }
        if format == .mp3VBR {
            var mode = Int32(SF_BITRATE_MODE_VARIABLE)
            sf_command(file, Int32(SFC_SET_BITRATE_MODE), &mode, Int32(MemoryLayout<Int32>.size))
        } else if format == .mp3CBR {
            var mode = Int32(SF_BITRATE_MODE_CONSTANT)
            sf_command(file, Int32(SFC_SET_BITRATE_MODE), &mode, Int32(MemoryLayout<Int32>.size))
        }
        let frames = samples.count / channels
        let written = samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(frames)) }
        sf_close(file)
        guard written == frames else { throw WriteError(description: "short write to \(path)") }
    }

    /// Puts `fields` in a native FLAC file's Vorbis comment block (replacing any), as flac and FFmpeg write
    /// WAVEFORMATEXTENSIBLE_CHANNEL_MASK for a layout other than the channel count's usual one.
    public static func setFLACComments(_ fields: [String], path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count > 8, bytes[0..<4].elementsEqual("fLaC".utf8) else { throw WriteError(description: "\(path) is no FLAC") }
        var blocks: [(type: UInt8, body: ArraySlice<UInt8>)] = []
        var i = 4
        while true {
            let last = bytes[i] & 0x80 != 0, type = bytes[i] & 0x7F
            let length = Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if type != 4 { blocks.append((type, bytes[i + 4..<i + 4 + length])) }
            i += 4 + length
            if last { break }
        }
        func le32(_ n: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) } }
        var comment = le32(7) + Array("spindle".utf8) + le32(fields.count)
        for field in fields { comment += le32(field.utf8.count) + Array(field.utf8) }
        blocks.insert((4, comment[...]), at: 1)
        var out = Array("fLaC".utf8)
        for (n, block) in blocks.enumerated() {
            let flag: UInt8 = n == blocks.count - 1 ? 0x80 : 0
            out += [flag | block.type] + le32(block.body.count).prefix(3).reversed() + block.body
        }
        out += bytes[i...]
        try Data(out).write(to: URL(fileURLWithPath: path))
    }

    /// Removes the Xing/Info (and LAME) header frame from an MP3: the case where decoders that trust the
    /// header-less length estimate truncate a VBR file.
    public static func stripXingHeader(path: String) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        var offset = 0
        if data.count > 10, data[0] == 0x49, data[1] == 0x44, data[2] == 0x33 {
            offset = 10 + (Int(data[6]) << 21 | Int(data[7]) << 14 | Int(data[8]) << 7 | Int(data[9]))
        }
        while offset + 4 < data.count, !(data[offset] == 0xFF && (data[offset + 1] & 0xE0) == 0xE0) { offset += 1 }
        let header = [UInt8](data[offset..<min(data.count, offset + 200)])
        guard let range = header.firstRange(of: Array("Xing".utf8)) ?? header.firstRange(of: Array("Info".utf8)) else {
            throw WriteError(description: "no Xing/Info header in \(path)")
        }
        _ = range
        let bitrateIndex = Int(header[2] >> 4), padding = Int((header[2] >> 1) & 1)
        let rateIndex = Int((header[2] >> 2) & 3)
        let kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320][bitrateIndex]
        let rate = [44100, 48000, 32000][rateIndex]
        let length = 144 * kbps * 1000 / rate + padding
        data.removeSubrange(offset..<offset + length)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// A fresh temporary folder, removed by the caller.
    public static func temporaryDirectory(_ name: String = "spindle-test") throws -> String {
        let path = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs an external tool (ffmpeg for M4A, which libsndfile cannot write); nil when it is not installed.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String]) -> Int32? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { "\($0)/\(tool)" } + ["/usr/bin/\(tool)"]
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Small deterministic generator so synthesized fixtures are identical on every run: the one k-means seeds with.
public typealias SplitMix = SeededRandom

extension SeededRandom {
    public mutating func nextUnit() -> Double { unit() }
}
