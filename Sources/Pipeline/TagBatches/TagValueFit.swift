import Foundation
import Tagging

/// Values a format holds only in a fixed form, fitted when a batch is planned. MP4 keeps the BPM, the track
/// and disc numbers and the compilation flag in integer atoms (`tmpo`, `trkn`, `disk`, `cpil`): "03/12" is
/// stored as 3 of 12 and reads back "3/12", and "120.5" or "abc" cannot be stored at all. WMA keeps the
/// title, artist, copyright and comment in its content description, one string each. Written as typed, the
/// copy's read-back check refused such files only after writing them ("BPM did not read back as written").
/// Fitted values are planned in the form the file will hold; a value the field cannot hold refuses the file
/// at planning, saying why.
enum TagValueFit {
    /// A field's one value as the container stores it, or nil when it cannot hold it.
    private struct Rule {
        var form: String
        var fit: (String) -> String?
    }

    /// TagLib's codec names of the files it writes as MP4, and as ASF.
    static let mp4Codecs: Set<String> = ["aac", "alac"]
    static let asfCodecs: Set<String> = ["wma"]

    private static func rule(_ key: String, codec: String) -> (container: String, rule: Rule)? {
        if mp4Codecs.contains(codec) {
            switch key {
            case "BPM": return ("an MP4 file", Rule(form: "one whole number (its tmpo atom)") { whole($0, in: 0...65535) })
            case "TRACKNUMBER", "DISCNUMBER": return ("an MP4 file", Rule(form: "one number or number of a total (3/12)", fit: numberOfTotal))
            case "COMPILATION": return ("an MP4 file", Rule(form: "1 or 0", fit: flag))
            default: return nil
            }
        }
        if asfCodecs.contains(codec), ["TITLE", "ARTIST", "COPYRIGHT", "COMMENT"].contains(key) {
            return ("a WMA file", Rule(form: "one value (its content description)") { $0 })
        }
        return nil
    }

    /// `edit` with its values in the form `codec`'s container holds them, or why a value cannot be held.
    static func fitted(_ edit: TagEdit, codec: String) -> Result<TagEdit, TagValueRefusal> {
        var fitted = edit
        for (key, values) in edit.set.sorted(by: { $0.key < $1.key }) {
            guard let (container, rule) = rule(key, codec: codec) else { continue }
            guard values.count == 1, let value = rule.fit(values[0]) else {
                let shown = values.map { "\"\($0)\"" }.joined(separator: ", ")
                return .failure(TagValueRefusal(reason: "\(container) can hold \(key) only as \(rule.form): \(shown) cannot be written"))
            }
            fitted.set[key] = [value]
        }
        return .success(fitted)
    }

    /// "120", " 120 ", "0120" and "120.0" as "120"; nil for anything else or outside `range`.
    static func whole(_ text: String, in range: ClosedRange<Int>) -> String? {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard t.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let d = Double(t), d.rounded() == d,
              let n = Int(exactly: d), range.contains(n) else { return nil }
        return String(n)
    }

    /// "3", "03" and "3/12" as MP4 stores them ("3", "3/12"); nil for anything else.
    static func numberOfTotal(_ text: String) -> String? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count), let number = whole(parts[0], in: 0...65535) else { return nil }
        guard parts.count == 2 else { return number }
        guard let total = whole(parts[1], in: 0...65535) else { return nil }
        return number + "/" + total
    }

    static func flag(_ text: String) -> String? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "yes": return "1"
        case "0", "false", "no": return "0"
        default: return nil
        }
    }
}

struct TagValueRefusal: Error { var reason: String }
