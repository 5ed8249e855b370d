import Foundation
import Genres

/// Finds Spindle's data files (genre taxonomy and rules): SPINDLE_DATA_DIR, the `data/` folder of the
/// source tree the binary was built in, PREFIX/share/spindle/data beside an installed PREFIX/bin/spindle
/// (`scripts/install.sh`), the usual install locations, then ./data.
enum DataFiles {
    static func locate(_ name: String) throws -> String {
        var candidates: [String] = []
        if let dir = ProcessInfo.processInfo.environment["SPINDLE_DATA_DIR"], !dir.isEmpty { candidates.append(dir) }
        let folders = RunningProgram.folders(5)
        candidates += folders.map { $0.appendingPathComponent("data").path }
        if folders.count > 1 { candidates.append(folders[1].appendingPathComponent("share/spindle/data").path) }
        candidates += ["/usr/local/share/spindle/data", "/usr/share/spindle/data",
                       FileManager.default.currentDirectoryPath + "/data"]
        for c in candidates where FileManager.default.isReadableFile(atPath: c + "/" + name) { return c + "/" + name }
        throw ConfigurationError("cannot find data/\(name) (looked in \(candidates.joined(separator: ", "))); set SPINDLE_DATA_DIR")
    }

    static func taxonomy() throws -> Taxonomy {
        let path = try locate("genre-taxonomy.toml")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ConfigurationError("cannot read \(path)") }
        do { return try TaxonomyFile.parse(text) } catch { throw ConfigurationError("\(path): \(error)") }
    }

    static func rules() throws -> RuleSet {
        let path = try locate("genre-rules.toml")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ConfigurationError("cannot read \(path)") }
        do { return try RuleSet.parse(text) } catch { throw ConfigurationError("\(path): \(error)") }
    }
}
