import Analysis

/// Visualiser frames as JSON: an array of frames, each an array of band levels from 0 to 1, as the Navidrome
/// companion served them. A 4-minute track is 230,000 numbers, and the read API's `/visualizer/frames` must
/// answer within 20 ms, so each byte's text comes from a flat table of the 256 possible levels and is copied
/// straight into a buffer sized for the worst case: no per-number allocation, formatting or bounds check.
public enum FramesJSON {
    /// Longest text of one level ("0.1234").
    private static let slot = 6
    /// Each stored byte's level, as JSONValue prints it to 4 digits, in `slot` bytes per level.
    private static let table: (text: [UInt8], lengths: [UInt8]) = {
        var text = [UInt8](repeating: 0, count: 256 * slot)
        var lengths = [UInt8](repeating: 0, count: 256)
        for b in 0...255 {
            let level = Array(JSONValue.from(Double(b) / 255, digits: 4).serialized().utf8)
            precondition(level.count <= slot, "a level's text outgrew its slot")
            text.replaceSubrange(b * slot ..< b * slot + level.count, with: level)
            lengths[b] = UInt8(level.count)
        }
        return (text, lengths)
    }()

    /// Takes a buffer, not any collection: a generic loop called from another module is not specialised and
    /// costs tens of nanoseconds a byte.
    public static func encode(bands: Int, data: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let bands = max(bands, 1)
        let frames = (data.count + bands - 1) / bands
        // Every number with its separator, every frame's brackets and comma, the outer brackets.
        let capacity = data.count * (slot + 1) + frames * 3 + 2
        let (text, lengths) = table
        return [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
            written = text.withUnsafeBufferPointer { text in
                lengths.withUnsafeBufferPointer { lengths in
                    write(data, bands: bands, text: text, lengths: lengths, into: out)
                }
            }
        }
    }

    /// Writes the JSON into `out` (large enough for the worst case) and returns how many bytes it wrote.
    private static func write(_ data: UnsafeBufferPointer<UInt8>, bands: Int, text: UnsafeBufferPointer<UInt8>,
                              lengths: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var at = 0
        func put(_ ascii: Unicode.Scalar) { out[at] = UInt8(ascii: ascii); at += 1 }
        put("[")
        var band = 0
        for byte in data {
            if band == 0 {
                if at > 1 { put(",") }
                put("[")
            } else {
                put(",")
            }
            let from = Int(byte) * slot, length = Int(lengths[Int(byte)])
            for k in 0..<length { out[at + k] = text[from + k] }
            at += length
            band += 1
            if band == bands {
                put("]")
                band = 0
            }
        }
        if band != 0 { put("]") }
        put("]")
        return at
    }

    /// The text written a piece of frames at a time, for frames too long to hold as text whole (a 10-hour
    /// file's are 240 MB of it): each `piece`'s text, then `end`'s, make `encode`'s text of them all.
    public struct Pieces {
        private var started = false

        public init() {}

        /// Bytes of whole frames to give `piece` at a time: about 1 MiB, some 7 MB of text.
        public static func bytes(bands: Int) -> Int { max(1, (1 << 20) / max(bands, 1)) * max(bands, 1) }

        /// Whole frames (the last piece may end in a short one).
        public mutating func piece(bands: Int, data: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            // The whole text of these frames, its closing bracket dropped and its opening one a comma after the
            // first piece: in place, not a copy of some 7 MB.
            var text = FramesJSON.encode(bands: bands, data: data)
            guard text.count > 2 else { return [] }
            text.removeLast()
            if started { text[0] = UInt8(ascii: ",") }
            started = true
            return text
        }

        public func end() -> [UInt8] { Array((started ? "]" : "[]").utf8) }
    }
}
