import Library

extension Resolution {
    /// How a file found by name or words was found ("found by fuzzy word match for "x.flac""), nil when the
    /// input named it: a person who mistyped a name must not take a guess's answer for the track they meant.
    public var guess: String? {
        guard resolved != nil, !isExact else { return nil }
        return "found by \(guessedBy) for \"\(TerminalText.safe(input))\""
    }
}
