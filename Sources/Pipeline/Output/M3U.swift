import Foundation
import Similarity

/// Extended M3U (UTF-8, so `.m3u8` for a file): `#EXTINF:seconds,Artist - Title` before each path.
enum M3U {
    static func render(_ tracks: [TrackInput], path: (TrackInput) -> String, title: String? = nil) -> String {
        var text = "#EXTM3U\n"
        if let title { text += "#PLAYLIST:\(label(title))\n" }
        for t in tracks {
            let location = path(t)
            guard canList(location) else { continue }
            let seconds = t.duration.map { Int($0.rounded()) } ?? -1
            let credit = [t.artist, t.title].compactMap { $0 }.filter { !$0.isEmpty }
            let name = credit.isEmpty ? (t.path as NSString).lastPathComponent : credit.joined(separator: " - ")
            text += "#EXTINF:\(seconds),\(label(name))\n\(pathLine(location))\n"
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

    /// A title or a playlist's name: one line, and no control characters. A tag's escape sequence
    /// ("\u{1B}]0;…", "\u{1B}[2J") reached the terminal of whoever ran `spindle mix`, which prints the playlist,
    /// and in a playlist file no player shows it. A path keeps its characters: it must name its file.
    static func label(_ s: String) -> String {
        String(oneLine(s).map { c in c.unicodeScalars.contains(where: TerminalText.isControl) ? " " : c })
    }
}
