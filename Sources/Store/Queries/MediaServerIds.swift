import Foundation
import GRDB

/// A media server's track ids and the library's files, both ways (`navidrome_tracks`, filled by
/// `navidrome import`): the AudioMuse-compatible API is asked and answers in the server's ids.
public enum MediaServerIds {
    /// The present file of root `rootId` that Navidrome's track `id` is, or nil.
    public static func path(_ db: Database, rootId: Int64, navidromeId id: String) throws -> String? {
        try String.fetchOne(db, sql: """
            SELECT f.path FROM navidrome_tracks n JOIN files f ON f.id = n.file_id
            WHERE n.navidrome_id = ? AND f.root_id = ? AND f.status = 'present'
            """, arguments: [id, rootId])
    }

    /// Navidrome's id for each of `paths` that has one (the least, where a file has several), by path.
    public static func navidromeIds(_ db: Database, rootId: Int64, paths: [String]) throws -> [String: String] {
        var out: [String: String] = [:]
        for start in stride(from: 0, to: paths.count, by: 500) {
            let chunk = Array(paths[start..<min(paths.count, start + 500)])
            let rows = try Row.fetchAll(db, sql: """
                SELECT f.path, min(n.navidrome_id) FROM navidrome_tracks n JOIN files f ON f.id = n.file_id
                WHERE f.root_id = ? AND f.path IN (\(chunk.map { _ in "?" }.joined(separator: ", "))) GROUP BY f.path
                """, arguments: StatementArguments([rootId]) + StatementArguments(chunk))
            for row in rows { try out[row.at(0) as String] = row.at(1) as String }
        }
        return out
    }
}
