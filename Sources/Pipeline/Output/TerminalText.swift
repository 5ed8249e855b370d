/// Text from file names and tags made safe for a terminal: control characters (escape sequences that could
/// retitle the window, move the cursor or hide what follows) are shown as visible `\xNN` escapes. JSON output
/// escapes them already; this is for the human-readable lines.
public enum TerminalText {
    public static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\x" + (hex.count == 1 ? "0" : "") + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// C0 controls, DEL and C1 controls (0x80–0x9F: CSI among them), plus the bidi overrides that reorder
    /// what is shown.
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || (0x202A...0x202E).contains(s.value)
            || (0x2066...0x2069).contains(s.value)
    }
}
