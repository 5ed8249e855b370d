import Analysis

/// Visualiser frames as JSON: an array of frames, each an array of band levels from 0 to 1, as the Navidrome
/// companion served them. Written byte by byte from a table of the 256 possible levels, because a 4-minute
/// track is 230,000 numbers and `frames --json` and the read API's `/visualizer/frames` print them all.
public enum FramesJSON {
    /// Each stored byte's level, as JSONValue prints it to 4 digits.
    private static let levels: [[UInt8]] = (0...255).map { b in
        Array(JSONValue.from(Double(b) / 255, digits: 4).serialized().utf8)
    }

    public static func encode(bands: Int, data: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count * 6 + 2)
        out.append(UInt8(ascii: "["))
        var band = 0
        var first = true
        for byte in data {
            if band == 0 {
                if !first { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "["))
            } else {
                out.append(UInt8(ascii: ","))
            }
            out.append(contentsOf: levels[Int(byte)])
            band += 1
            if band == bands {
                out.append(UInt8(ascii: "]"))
                band = 0
                first = false
            }
        }
        if band != 0 { out.append(UInt8(ascii: "]")) }
        out.append(UInt8(ascii: "]"))
        return out
    }

    public static func encode(_ frames: VisualFrames) -> [UInt8] { encode(bands: frames.bands, data: frames.data) }
}
