/// The 50 tags of MusiCNN's Million Song Dataset model, in the order of its outputs (musicnn's MSD_LABELS).
public enum MusicnnTags {
    public static let names = [
        "rock", "pop", "alternative", "indie", "electronic", "female vocalists", "dance", "00s", "alternative rock", "jazz",
        "beautiful", "metal", "chillout", "male vocalists", "classic rock", "soul", "indie rock", "Mellow", "electronica", "80s",
        "folk", "90s", "chill", "instrumental", "punk", "oldies", "blues", "hard rock", "ambient", "acoustic",
        "experimental", "female vocalist", "guitar", "Hip-Hop", "70s", "party", "country", "easy listening", "sexy", "catchy",
        "funk", "electro", "heavy metal", "Progressive rock", "60s", "rnb", "indie pop", "sad", "House", "happy",
    ]

    /// The `count` most probable tags, most probable first.
    public static func top(_ probabilities: [Float], count: Int) -> [(tag: String, probability: Float)] {
        zip(names, probabilities).sorted { $0.1 > $1.1 }.prefix(count).map { ($0.0, $0.1) }
    }
}

/// Float vectors as the database keeps them: float32, little-endian.
public enum FloatBlob {
    public static func encode(_ values: [Float]) -> [UInt8] {
        values.flatMap { v in withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) } }
    }

    public static func decode(_ bytes: some Collection<UInt8>) -> [Float]? {
        guard bytes.count % 4 == 0 else { return nil }
        let b = Array(bytes)
        return stride(from: 0, to: b.count, by: 4).map { i in
            Float(bitPattern: UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24)
        }
    }
}
