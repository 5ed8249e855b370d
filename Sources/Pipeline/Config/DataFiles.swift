import Foundation
import Genres

/// Finds Spindle's data files (genre taxonomy and rules): SPINDLE_DATA_DIR, the `data/` folder of the
/// source tree the binary was built in, PREFIX/share/spindle/data beside an installed PREFIX/bin/spindle
/// (`scripts/install.sh`), the usual install locations, then ./data; and the pipeline files that come
/// with it, the same way.
enum DataFiles {
    static func locate(_ name: String) throws -> String {
        var candidates: [String] = []
        if let dir = ProcessInfo.processInfo.environment["SPINDLE_DATA_DIR"], !dir.isEmpty { candidates.append(dir) }
        candidates += installFolders("data") + [FileManager.default.currentDirectoryPath + "/data"]
        for c in candidates where FileManager.default.isReadableFile(atPath: c + "/" + name) { return c + "/" + name }
        throw ConfigurationError("cannot find data/\(name) (looked in \(candidates.joined(separator: ", "))); set SPINDLE_DATA_DIR")
    }

    /// `folder` (data, Pipelines) in the source tree the binary was built in, beside an installed
    /// PREFIX/bin/spindle as PREFIX/share/spindle/FOLDER, and in the usual install locations.
    private static func installFolders(_ folder: String) -> [String] {
        let folders = RunningProgram.folders(5)
        var candidates = folders.map { $0.appendingPathComponent(folder).path }
        if folders.count > 1 { candidates.append(folders[1].appendingPathComponent("share/spindle/" + folder).path) }
        return candidates + ["/usr/local/share/spindle/" + folder, "/usr/share/spindle/" + folder]
    }

    /// A pipeline named without a folder (`spindle run nightly`): NAME or NAME.toml among the pipelines that
    /// come with Spindle, or nil.
    static func pipeline(named name: String) -> String? {
        guard !name.contains("/") else { return nil }
        let names = name.hasSuffix(".toml") ? [name] : [name, name + ".toml"]
        for folder in installFolders("Pipelines") {
            for n in names where FileManager.default.isReadableFile(atPath: folder + "/" + n) { return folder + "/" + n }
        }
        return nil
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
