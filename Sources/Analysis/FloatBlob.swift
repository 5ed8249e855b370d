import Foundation

/// Float vectors as the database keeps them (feature vectors, tag probabilities, embeddings): float32,
/// little-endian.
public enum FloatBlob {
    public static func encode(_ values: [Float]) -> Data {
        var data = Data(capacity: values.count * 4)
        for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    public static func decode(_ data: Data) -> [Float]? {
        guard data.count % 4 == 0 else { return nil }
        return data.withUnsafeBytes { raw in
            (0..<raw.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }
}
