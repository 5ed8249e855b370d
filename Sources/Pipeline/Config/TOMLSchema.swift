import TOMLKit
import TextFormats

/// The keys a config or pipeline file may hold and their types. A key the schema does not know (a typo,
/// `min-bpm` for `min_bpm`) or a value of the wrong type (`jobs = "two"`) is a configuration error naming the
/// key, never silently ignored.
struct TOMLSchema: Sendable {
    indirect enum Kind: Sendable {
        case string, integer, number, bool, strings
        case table(TOMLSchema)

        var name: String {
            switch self {
            case .string: return "a string"
            case .integer: return "an integer"
            case .number: return "a number"
            case .bool: return "true or false"
            case .strings: return "a list of strings"
            case .table: return "a table"
            }
        }

        func accepts(_ value: TOMLValueConvertible) -> Bool {
            switch (self, value.type) {
            case (.string, .string), (.integer, .int), (.number, .int), (.number, .double), (.bool, .bool), (.table, .table):
                return true
            case (.strings, .array):
                return value.array.map { $0.allSatisfy { $0.type == .string } } ?? false
            default:
                return false
            }
        }
    }

    var keys: [String: Kind]

    func merging(_ other: TOMLSchema) -> TOMLSchema { TOMLSchema(keys: keys.merging(other.keys) { a, _ in a }) }

    /// Checks the text of `file` against the schema; throws a ConfigurationError naming the first bad key.
    func check(text: String, file: String) throws {
        let table: TOMLTable
        do { table = try TOMLText.table(text) } catch {
            throw ConfigurationError("\(file) is not valid TOML: \(error)")
        }
        try check(table, file: file, prefix: "")
    }

    private func check(_ table: TOMLTable, file: String, prefix: String) throws {
        for key in table.keys.sorted() {
            let name = prefix.isEmpty ? key : prefix + "." + key
            guard let kind = keys[key] else {
                let known = keys.keys.sorted().map { prefix.isEmpty ? $0 : prefix + "." + $0 }.joined(separator: ", ")
                throw ConfigurationError("\(file): unknown key '\(name)' (known here: \(known))")
            }
            guard let value = table[key], kind.accepts(value) else {
                throw ConfigurationError("\(file): '\(name)' must be \(kind.name)")
            }
            if case .table(let inner) = kind, let sub = value.table {
                try inner.check(sub, file: file, prefix: name)
            }
        }
    }

    /// The config file: `library`, `database`, `jobs`, `[analysis]`, `[runtime]`, `[playlists]`, `[scan]`.
    static let config = TOMLSchema(keys: [
        "library": .string, "database": .string, "jobs": .integer,
        "analysis": .table(TOMLSchema(keys: [
            "enabled": .strings, "silence_threshold_db": .number, "min_bpm": .number, "max_bpm": .number,
            "frames_fps": .number, "frames_bands": .integer, "tagger_patches": .integer,
        ])),
        "runtime": .table(TOMLSchema(keys: [
            "worker_timeout_base_s": .number, "worker_timeout_per_audio_s": .number, "worker_timeout_max_s": .number,
        ])),
        "playlists": .table(TOMLSchema(keys: ["dir": .string])),
        "scan": .table(TOMLSchema(keys: ["forget_missing_after_days": .integer])),
    ])

    /// A pipeline file: the config file's keys plus its own tables.
    static let pipeline = config.merging(TOMLSchema(keys: [
        "pipeline": .table(TOMLSchema(keys: ["name": .string, "description": .string, "stages": .strings, "force": .bool])),
        "report": .table(TOMLSchema(keys: ["format": .string, "output": .string])),
        "tagfix": .table(TOMLSchema(keys: ["edits": .string, "fixers": .strings, "allow_custom": .bool, "dry_run": .bool])),
        "navidrome": .table(TOMLSchema(keys: [
            "url": .string, "user": .string, "password": .string, "password_file": .string, "token": .string, "salt": .string,
            "db": .string,
        ])),
        "jellyfin": .table(TOMLSchema(keys: ["url": .string, "api_key_file": .string])),
    ]))
}
