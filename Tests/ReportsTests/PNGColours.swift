import Foundation

/// Counts the exact RGB colours of a PNG screenshot: chunks and scanline filters are decoded here, the zlib
/// stream is inflated by python3's zlib (Foundation on Linux has no inflate).
enum PNGColours {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func count(png: Data) throws -> [Int: Int] {
        let bytes = [UInt8](png)
        guard bytes.count > 33, Array(bytes[1..<4]) == Array("PNG".utf8) else { throw Failure(description: "not a PNG") }
        var offset = 8
        var width = 0, height = 0, colourType = 0, depth = 0
        var idat = Data()
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let body = (offset + 8)..<(offset + 8 + length)
            if type == "IHDR" {
                width = Int(bytes[body.lowerBound]) << 24 | Int(bytes[body.lowerBound + 1]) << 16 | Int(bytes[body.lowerBound + 2]) << 8 | Int(bytes[body.lowerBound + 3])
                height = Int(bytes[body.lowerBound + 4]) << 24 | Int(bytes[body.lowerBound + 5]) << 16 | Int(bytes[body.lowerBound + 6]) << 8 | Int(bytes[body.lowerBound + 7])
                depth = Int(bytes[body.lowerBound + 8])
                colourType = Int(bytes[body.lowerBound + 9])
            } else if type == "IDAT" {
                idat.append(contentsOf: bytes[body])
            }
            offset += 12 + length
        }
        guard depth == 8, colourType == 2 || colourType == 6 else { throw Failure(description: "unsupported PNG layout") }
        let channels = colourType == 6 ? 4 : 3
        let raw = try inflate(idat)
        let stride = width * channels
        var previous = [UInt8](repeating: 0, count: stride)
        var counts: [Int: Int] = [:]
        var p = 0
        for _ in 0..<height {
            let filter = raw[p]
            var line = Array(raw[(p + 1)..<(p + 1 + stride)])
            p += 1 + stride
            for i in 0..<stride {
                let a = i >= channels ? Int(line[i - channels]) : 0
                let b = Int(previous[i])
                let c = i >= channels ? Int(previous[i - channels]) : 0
                let x = Int(line[i])
                switch filter {
                case 1: line[i] = UInt8((x + a) & 0xff)
                case 2: line[i] = UInt8((x + b) & 0xff)
                case 3: line[i] = UInt8((x + (a + b) / 2) & 0xff)
                case 4:
                    let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
                    let pred = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                    line[i] = UInt8((x + pred) & 0xff)
                default: break
                }
            }
            for px in 0..<width {
                let rgb = Int(line[px * channels]) << 16 | Int(line[px * channels + 1]) << 8 | Int(line[px * channels + 2])
                counts[rgb, default: 0] += 1
            }
            previous = line
        }
        return counts
    }

    /// zlib inflate through the system's `python3` (present wherever the tests run).
    static func inflate(_ data: Data) throws -> [UInt8] {
        let dir = NSTemporaryDirectory() + "png-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try data.write(to: URL(fileURLWithPath: dir + "/in"))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import zlib,sys; open(sys.argv[2],'wb').write(zlib.decompress(open(sys.argv[1],'rb').read()))",
                       dir + "/in", dir + "/out"]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw Failure(description: "inflate failed") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/out")))
    }
}
