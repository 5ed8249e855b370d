import Foundation

/// Artist credits as taggers write them, where a track's guests share the ARTIST field with its artist.
public enum ArtistCredit {
    /// The artist a credit names first: "A feat. B", "A ft. B", "A featuring B", "A (feat. B)" → "A". Only
    /// these markers: "&", "and" and "with" also join the names of bands ("Simon & Garfunkel").
    public static func lead(_ credit: String) -> String {
        var cut = credit.endIndex
        for marker in [" feat. ", " feat ", " ft. ", " ft ", " featuring ", " (feat", " [feat", " (ft.", " [ft."] {
            if let r = credit.range(of: marker, options: .caseInsensitive), r.lowerBound < cut { cut = r.lowerBound }
        }
        let lead = credit[..<cut].trimmingCharacters(in: .whitespaces)
        return lead.isEmpty ? credit : lead
    }
}
