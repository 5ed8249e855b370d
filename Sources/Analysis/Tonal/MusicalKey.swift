/// One of the 24 major and minor keys.
public struct MusicalKey: Sendable, Equatable, Hashable {
    /// Pitch class of the tonic, C = 0.
    public var tonic: Int
    public var minor: Bool

    public init(tonic: Int, minor: Bool) {
        self.tonic = ((tonic % 12) + 12) % 12
        self.minor = minor
    }

    /// The spelling DJ software and tag editors use for either mode.
    static let tonicNames = ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]

    /// "A minor", "C# major": what `inspect --json` and the `analysis` table hold.
    public var name: String { "\(Self.tonicNames[tonic]) \(minor ? "minor" : "major")" }

    /// "Am", "C#", "Ebm": the INITIALKEY / TKEY form (ID3's, at most three characters).
    public var tagValue: String { Self.tonicNames[tonic] + (minor ? "m" : "") }

    /// Parses `name` (and the tag form), so stored keys can be written as tags.
    public init?(name: String) {
        let text = name.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: " ")
        var tonicText = String(parts.first ?? "")
        var minor = parts.count > 1 && parts[1].lowercased().hasPrefix("min")
        if parts.count == 1, tonicText.count > 1, tonicText.hasSuffix("m") {
            minor = true
            tonicText.removeLast()
        }
        guard let tonic = Self.tonicNames.firstIndex(of: tonicText) else { return nil }
        self.init(tonic: tonic, minor: minor)
    }
}
