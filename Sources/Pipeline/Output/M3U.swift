import Foundation
import Genres

/// Extended M3U (UTF-8, so `.m3u8` for a file): `#EXTINF:seconds,Artist - Title` before each path.
enum M3U {
    static func render(_ tracks: [TrackInput], path: (TrackInput) -> String, title: String? = nil) -> String {
        var text = "#EXTM3U\n"
        if let title { text += "#PLAYLIST:\(oneLine(title))\n" }
        for t in tracks {
            let location = path(t)
            guard canList(location) else { continue }
            let seconds = t.duration.map { Int($0.rounded()) } ?? -1
            let label = [t.artist, t.title].compactMap { $0 }.filter { !$0.isEmpty }
            let name = label.isEmpty ? (t.path as NSString).lastPathComponent : label.joined(separator: " - ")
            text += "#EXTINF:\(seconds),\(oneLine(name))\n\(pathLine(location))\n"
        }
        return text
    }

    /// Whether a path can be a playlist line: M3U has no escape for a line break, so a file whose name holds
    /// one is left out (written with the break as a space, it named a file that does not exist).
    static func canList(_ path: String) -> Bool { !path.contains(where: \.isNewline) }

    /// A path starting with '#' (an artist folder named "#1 Dads") would read as a comment, and one starting with
    /// a space would lose it (Navidrome and Jellyfin trim each line): "./" keeps either the path it is.
    static func pathLine(_ path: String) -> String {
        let line = oneLine(path)
        return line.hasPrefix("#") || line.first?.isWhitespace == true ? "./" + line : line
    }

    /// A tag with a line break would start a line the player reads as a path.
    static func oneLine(_ s: String) -> String {
        String(s.map { $0.isNewline || $0 == "\0" ? " " : $0 })
    }
}
