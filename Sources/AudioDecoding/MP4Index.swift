import Foundation

/// Why FFmpeg cannot open an MP4/M4A file, when the reason is its index. An MP4's sample tables ('moov') say
/// where every frame of the media data ('mdat') is; most encoders write them after the media, so a download
/// or copy cut short loses them, and no player can play what is there. "FFmpeg cannot open it as media" told
/// a user nothing of that; this says the file was cut short, and how far it got.
enum MP4Index {
    static func missing(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0 else { return nil }
        var offset: UInt64 = 0
        var sawIndex = false
        while offset + 8 <= size {
            guard (try? handle.seek(toOffset: offset)) != nil, let header = try? handle.read(upToCount: 16),
                  header.count >= 8 else { return nil }
            let h = [UInt8](header)
            let type = String(decoding: h[4..<8], as: UTF8.self)
            var length = UInt64(h[0]) << 24 | UInt64(h[1]) << 16 | UInt64(h[2]) << 8 | UInt64(h[3])
            if length == 1, h.count >= 16 { length = h[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            if length == 0 { length = size - offset }
            guard length >= 8 else { return nil }
            if type == "moov" { sawIndex = true }
            if length > size - offset {
                guard !sawIndex else { return nil }
                let percent = Int(Double(size - offset) / Double(length) * 100)
                return "truncated: the file ends \(percent) % into its '\(type)' box, before the index ('moov') an MP4 "
                    + "cannot be played without: cut short, as an unfinished download or copy is"
            }
            offset += length
        }
        return sawIndex ? nil : "no index ('moov'): an MP4 cannot be played without one (cut short, or not finished by its writer)"
    }
}
