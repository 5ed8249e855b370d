import Foundation
import GRDB
import Library
import Store
import Tagging

/// Where tag edits come from: `--set`/`--unset`, an edits file (CSV path,key,value or JSON), the fixers,
/// and the analysis results.
public enum TagEditSources {
    /// KEY=VALUE assignments (a key given twice gets both values) and keys to remove.
    public static func assignments(_ set: [String], unset: [String]) throws -> TagEdit {
        var edit = TagEdit()
        for a in set {
            guard let eq = a.firstIndex(of: "="), eq != a.startIndex else {
                throw ConfigurationError("--set takes KEY=VALUE (got \(a))")
            }
            let key = String(a[..<eq]).uppercased()
            // Never a removal: `--set BPM=$bpm` with an empty variable would delete every file's BPM.
            guard a.index(after: eq) != a.endIndex else {
                throw ConfigurationError("--set \(a) gives \(key) no value: to remove \(key), use --unset \(key)")
            }
            edit.set[key, default: []].append(String(a[a.index(after: eq)...]))
        }
        edit.unset = unset.map { $0.uppercased() }
        return edit
    }

    /// CSV with the columns path,key,value (a header row is optional; an empty value removes the key;
    /// rows for the same path and key give several values; semicolons or tabs may separate them instead), or
    /// JSON: an array of {"path", "key", "value"} objects, or of {"path", "set": {KEY: value or [values]},
    /// "unset": [KEY]}, a value being a string or a number.
    public static func file(_ path: String) throws -> [(String, TagEdit)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError("cannot read edits file \(path)")
        }
        if path.lowercased().hasSuffix(".json") || text.trimmingCharacters(in: .whitespaces).hasPrefix("[") {
            return try json(text, source: path)
        }
        return try csv(text, source: path)
    }

    static func csv(_ text: String, source: String) throws -> [(String, TagEdit)] {
        var out: [(String, TagEdit)] = []
        var index: [String: Int] = [:]
        for (n, row) in parseCSV(text, delimiter: delimiter(text)).enumerated() {
            if n == 0, row.map({ $0.lowercased() }) == ["path", "key", "value"] { continue }
            guard row.count == 3 else {
                if row.allSatisfy({ $0.isEmpty }) { continue }
                throw ConfigurationError("\(source): row \(n + 1) needs 3 columns path,key,value")
            }
            let (path, key, value) = (row[0], row[1].uppercased(), row[2])
            if index[path] == nil { index[path] = out.count; out.append((path, TagEdit())) }
            let i = index[path]!
            if value.isEmpty {
                out[i].1.unset.append(key)
            } else {
                out[i].1.set[key, default: []].append(value)
            }
        }
        return out
    }

    /// The field separator: a comma, or the semicolon or tab that spreadsheets write in locales whose decimal
    /// mark is a comma, when only that splits the first row into the three columns.
    static func delimiter(_ text: String) -> Character {
        let firstRow = String(text.prefix { !$0.isNewline })
        return [",", ";", "\t"].first { parseCSV(firstRow, delimiter: $0).first?.count == 3 } ?? ","
    }

    /// RFC 4180 fields: quotes, doubled quotes, delimiters and newlines inside quotes. Read as UTF-8 bytes, every
    /// byte that matters being ASCII: as Characters, a 50 MB value took 13 s and 1 GB to parse.
    static func parseCSV(_ text: String, delimiter: Character = ",") -> [[String]] {
        let separator = delimiter.asciiValue ?? UInt8(ascii: ",")
        let quote = UInt8(ascii: "\""), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        var bytes = Array(text.utf8)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var rows: [[String]] = [], row: [String] = [], field: [UInt8] = []
        var quoted = false, i = bytes.startIndex
        func endField() { row.append(String(decoding: field, as: UTF8.self)); field.removeAll(keepingCapacity: true) }
        while i < bytes.endIndex {
            let c = bytes[i]
            if quoted {
                if c == quote {
                    if i + 1 < bytes.endIndex && bytes[i + 1] == quote { field.append(quote); i += 1 } else { quoted = false }
                } else { field.append(c) }
            } else if c == quote { quoted = true
            } else if c == separator { endField()
            } else if c == lf || c == cr {
                if c == cr, i + 1 < bytes.endIndex, bytes[i + 1] == lf { i += 1 }
                endField(); rows.append(row); row = []
            } else { field.append(c) }
            i += 1
        }
        if !field.isEmpty || !row.isEmpty { endField(); rows.append(row) }
        return rows
    }

    static func json(_ text: String, source: String) throws -> [(String, TagEdit)] {
        guard let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] else {
            throw ConfigurationError("\(source): expected a JSON array of objects")
        }
        var out: [(String, TagEdit)] = []
        for (n, item) in array.enumerated() {
            guard let path = item["path"] as? String else { throw ConfigurationError("\(source): item \(n + 1) has no path") }
            /// A value's strings: a string, a number (a BPM of 128 is "128") or a list of them; nil for no value
            /// (absent, null or ""), which removes the key. Anything else is an error, never a removal.
            func strings(_ value: Any?, _ key: String) throws -> [String]? {
                switch value {
                case nil, is NSNull: return nil
                case let v as String: return v.isEmpty ? nil : [v]
                case let v as NSNumber: return [v.stringValue]
                case let list as [Any]:
                    let items = try list.compactMap { element -> String? in
                        switch element {
                        case let v as String: return v.isEmpty ? nil : v
                        case let v as NSNumber: return v.stringValue
                        default: throw ConfigurationError("\(source): item \(n + 1): \(key) lists something other than strings and numbers")
                        }
                    }
                    return items.isEmpty ? nil : items
                default:
                    throw ConfigurationError("\(source): item \(n + 1): the value of \(key) must be a string, a number or a list of them")
                }
            }
            var edit = TagEdit()
            if let key = item["key"] as? String {
                if let values = try strings(item["value"], key) { edit.set[key.uppercased()] = values } else { edit.unset.append(key.uppercased()) }
            }
            for (key, value) in item["set"] as? [String: Any] ?? [:] {
                if let values = try strings(value, key) { edit.set[key.uppercased()] = values } else { edit.unset.append(key.uppercased()) }
            }
            edit.unset += (item["unset"] as? [String] ?? []).map { $0.uppercased() }
            out.append((path, edit))
        }
        return out
    }
}
