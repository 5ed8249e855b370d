/// Which directory entries the scan indexes. Audio is chosen by extension (the decoders then sniff the
/// content, so a mislabelled file still decodes and a fake one is reported); everything else in a music
/// folder — covers, playlists, cue sheets, logs, macOS sidecars — is passed over.
public enum AudioFileTypes {
    public static let audioExtensions: Set<String> = [
        "flac", "mp3", "ogg", "oga", "opus", "m4a", "m4b", "mp4", "aac", "alac", "wav", "wave", "aif", "aiff",
        "aifc", "wv", "ape", "wma", "caf", "mka", "au", "snd", "spx", "tta", "mpc", "mpp", "ac3", "eac3", "ec3",
        "rf64", "w64", "mp2", "webm", "dsf", "dff",
    ]

    /// Hidden entries (".DS_Store", "._Track.flac" AppleDouble sidecars, ".Trash") are never indexed.
    public static func isHidden(_ name: String) -> Bool { name.hasPrefix(".") }

    public static func isAudio(_ name: String) -> Bool {
        guard !isHidden(name), let dot = name.lastIndex(of: ".") else { return false }
        return audioExtensions.contains(name[name.index(after: dot)...].lowercased())
    }
}
