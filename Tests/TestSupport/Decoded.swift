import AudioDecoding
import Foundation

/// Every interleaved sample of a file, as Spindle's decoders deliver them.
public func decodedSamples(_ path: String) throws -> [Float] {
    let decoder = try AudioDecoders.open(path: path)
    var samples: [Float] = []
    var buffer = [Float](repeating: 0, count: 4096 * decoder.format.channels)
    while true {
        let n = buffer.withUnsafeMutableBufferPointer { decoder.read(into: $0.baseAddress!, frames: 4096) }
        if n == 0 { break }
        samples += buffer[0..<(n * decoder.format.channels)]
    }
    return samples
}
