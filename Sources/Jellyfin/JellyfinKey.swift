import Foundation
import Navidrome

/// Where Jellyfin's API key comes from, never the command line (other users see it in `ps`): a file whose
/// first line it is, or the environment.
public enum JellyfinKey {
    public static let variable = "SPINDLE_JELLYFIN_API_KEY"

    public struct Missing: Error, CustomStringConvertible {
        public var description: String {
            "Jellyfin needs an API key (Dashboard → API Keys): give a file holding it (--api-key-file, api_key_file) "
                + "or set \(JellyfinKey.variable)"
        }
    }

    /// The key in `file` when given, else in the environment's `SPINDLE_JELLYFIN_API_KEY`.
    public static func read(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                            warn: (String) -> Void) throws -> String {
        if let file { return try SecretFiles.firstLine(of: file, holding: "a Jellyfin API key", called: "API key file", warn: warn) }
        guard let key = environment[variable], !key.isEmpty else { throw Missing() }
        return key
    }
}
