import Foundation
import Tagging

/// Values a format holds only in a fixed form, fitted when a batch is planned. MP4 keeps the BPM, the track
/// and disc numbers and the compilation flag in integer atoms (`tmpo`, `trkn`, `disk`, `cpil`): "03/12" is
/// stored as 3 of 12 and reads back "3/12", and "120.5" or "abc" cannot be stored at all. Written as typed,
/// the copy's read-back check refused such files only after writing them ("BPM did not read back as
/// written"). Fitted values are planned in the form the file will hold; a value the atom cannot hold refuses
/// the file at planning, saying why.
enum TagValueFit {
    /// TagLib's codec names of the files it writes as MP4.
    static let mp4Codecs: Set<String> = ["aac", "alac"]

    /// `edit` with its values in the form `codec`'s container holds them, or why a value cannot be held.
    static func fitted(_ edit: TagEdit, codec: String) -> Result<TagEdit, TagValueRefusal> {
        guard mp4Codecs.contains(codec) else { return .success(edit) }
        var fitted = edit
        for (key, values) in edit.set {
            let rule: (String) -> String?
            let form: String
            switch key {
            case "BPM": rule = { whole($0, in: 0...65535) }; form = "a whole number (its tmpo atom)"
            case "TRACKNUMBER", "DISCNUMBER": rule = numberOfTotal; form = "a number or a number of a total (3/12)"
            case "COMPILATION": rule = flag; form = "1 or 0"
            default: continue
            }
            guard values.count == 1, let value = rule(values[0]) else {
                let shown = values.map { "\"\($0)\"" }.joined(separator: ", ")
                return .failure(TagValueRefusal(reason: "an MP4 file can hold \(key) only as \(form): \(shown) cannot be written"))
            }
            fitted.set[key] = [value]
        }
        return .success(fitted)
    }

    /// "120", " 120 ", "0120" and "120.0" as "120"; nil for anything else or outside `range`.
    static func whole(_ text: String, in range: ClosedRange<Int>) -> String? {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard let d = Double(t), d.isFinite, d.rounded() == d, let n = Int(exactly: d), range.contains(n),
              t.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
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
