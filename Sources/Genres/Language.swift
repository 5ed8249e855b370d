import Foundation

/// Languages: names for LANGUAGE tag codes (ISO 639-1/2/3) and inference from the writing system of the
/// title, artist and album when there is no tag.
public enum Language {
    static let names: [String: String] = [
        "en": "English", "eng": "English", "ko": "Korean", "kor": "Korean", "ja": "Japanese", "jpn": "Japanese",
        "zh": "Chinese", "zho": "Chinese", "chi": "Chinese", "cmn": "Chinese", "yue": "Cantonese",
        "ru": "Russian", "rus": "Russian", "uk": "Ukrainian", "ukr": "Ukrainian", "el": "Greek", "ell": "Greek",
        "gre": "Greek", "ar": "Arabic", "ara": "Arabic", "he": "Hebrew", "heb": "Hebrew", "th": "Thai",
        "tha": "Thai", "hi": "Hindi", "hin": "Hindi", "es": "Spanish", "spa": "Spanish", "pt": "Portuguese",
        "por": "Portuguese", "fr": "French", "fra": "French", "fre": "French", "de": "German", "deu": "German",
        "ger": "German", "it": "Italian", "ita": "Italian", "sv": "Swedish", "swe": "Swedish", "tr": "Turkish",
        "tur": "Turkish", "pl": "Polish", "pol": "Polish", "nl": "Dutch", "nld": "Dutch", "dut": "Dutch",
        "vi": "Vietnamese", "vie": "Vietnamese", "id": "Indonesian", "ind": "Indonesian", "fi": "Finnish",
        "fin": "Finnish",
    ]

    /// The language a LANGUAGE tag names ("kor", "ko", "Korean"); nil for "zxx"/"mul"/"und" and unknowns.
    public static func name(forTag tag: String) -> String? {
        let t = tag.trimmingCharacters(in: .whitespaces).lowercased()
        if let n = names[t] { return n }
        if let n = names.values.first(where: { $0.lowercased() == t }) { return n }
        return nil
    }

    /// The language a text's script points to, when the script belongs to essentially one language:
    /// Hangul → Korean, kana → Japanese, Han alone → Chinese, Cyrillic → Russian, Greek, Arabic, Hebrew,
    /// Thai, Devanagari → Hindi. Latin script says nothing.
    public static func fromScript(_ text: String) -> String? {
        var counts: [String: Int] = [:]
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let script: String?
            switch v {
            case 0xAC00...0xD7AF, 0x1100...0x11FF, 0x3130...0x318F: script = "Korean"
            case 0x3040...0x309F, 0x30A0...0x30FF, 0x31F0...0x31FF: script = "Japanese"
            case 0x4E00...0x9FFF, 0x3400...0x4DBF: script = "Han"
            case 0x0400...0x04FF: script = "Russian"
            case 0x0370...0x03FF: script = "Greek"
            case 0x0600...0x06FF: script = "Arabic"
            case 0x0590...0x05FF: script = "Hebrew"
            case 0x0E00...0x0E7F: script = "Thai"
            case 0x0900...0x097F: script = "Hindi"
            default: script = nil
            }
            if let script { counts[script, default: 0] += 1 }
        }
        guard !counts.isEmpty else { return nil }
        if counts["Japanese"] != nil { return "Japanese" }      // kana with kanji is Japanese
        if counts["Korean"] != nil { return "Korean" }
        if counts["Han"] != nil { return "Chinese" }
        return counts.max { $0.value < $1.value }?.key
    }

    static let demonyms: [String: String] = [
        "KR": "Korean", "JP": "Japanese", "CN": "Chinese", "TW": "Taiwanese", "HK": "Hong Kong", "US": "American",
        "GB": "British", "UK": "British", "FR": "French", "DE": "German", "ES": "Spanish", "IT": "Italian",
        "SE": "Swedish", "NO": "Norwegian", "FI": "Finnish", "RU": "Russian", "SU": "Soviet", "BR": "Brazilian",
        "MX": "Mexican", "CU": "Cuban", "CO": "Colombian", "AR": "Argentine", "PR": "Puerto Rican", "JM": "Jamaican",
        "NG": "Nigerian", "IN": "Indian", "TR": "Turkish", "GR": "Greek", "CA": "Canadian", "AU": "Australian",
        "IE": "Irish", "NL": "Dutch", "BE": "Belgian", "PL": "Polish", "PT": "Portuguese", "TH": "Thai",
        "VN": "Vietnamese", "ID": "Indonesian", "PH": "Filipino", "IL": "Israeli", "EG": "Egyptian",
    ]

    /// "Korean" for KR, nil for an unknown or worldwide ("XW") code.
    public static func demonym(forCountry code: String) -> String? {
        demonyms[code.trimmingCharacters(in: .whitespaces).uppercased()]
    }
}
