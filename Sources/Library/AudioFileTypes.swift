/// Which directory entries the scan indexes. Audio is chosen by extension (the decoders then sniff the
/// content, so a mislabelled file still decodes and a fake one is reported); everything else in a music
/// folder — covers, playlists, cue sheets, logs, macOS sidecars — is passed over.
public enum AudioFileTypes {
    public static let audioExtensions: Set<String> = [
        "flac", "mp3", "ogg", "oga", "opus", "m4a", "m4b", "mp4", "aac", "alac", "wav", "wave", "aif", "aiff",
        "aifc", "wv", "ape", "wma", "caf", "mka", "au", "snd", "spx", "tta", "mpc", "mpp", "ac3", "eac3", "ec3",
        "rf64", "w64", "mp2", "webm", "dsf", "dff",
        // Served by Navidrome, decoded by FFmpeg: Shorten (live-music archives), TAK, WavPack's older name.
        "shn", "tak", "wvp",
    ]

    /// Hidden entries (".DS_Store", "._Track.flac" AppleDouble sidecars, ".Trash") are never indexed. A name
    /// that begins with an ellipsis is a title, not a hidden file ("...And Justice for All", "...Ready for
    /// It?"), as Navidrome also reads it.
    public static func isHidden(_ name: String) -> Bool { name.hasPrefix(".") && !name.hasPrefix("..") }

    /// Folders that operating systems and NAS firmware keep inside shares, holding deleted files, snapshots
    /// and thumbnails, never a library's own music: Windows' recycle bin and volume data, Synology's and
    /// QNAP's recycle bins, snapshots and index data, ext4's lost+found. Indexed, they put deleted and
    /// old copies of tracks among the live ones (in genres, mixes and playlists). Compared without case.
    static let systemFolders: Set<String> = ["$recycle.bin", "system volume information", "#recycle", "#snapshot",
                                             "@recycle", "@recently-snapshot", "@eadir", "lost+found"]

    public static func isSystemFolder(_ name: String) -> Bool { systemFolders.contains(name.lowercased()) }

    public static func isAudio(_ name: String) -> Bool {
        guard !isHidden(name), let dot = name.lastIndex(of: ".") else { return false }
        return audioExtensions.contains(name[name.index(after: dot)...].lowercased())
    }
}
