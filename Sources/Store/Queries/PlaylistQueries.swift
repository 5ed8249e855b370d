import Foundation
import GRDB

/// The playlist files Spindle wrote (`playlists`).
public enum PlaylistQueries {
    public struct Written: Sendable, Equatable {
        public var file: String
        public var genre: String
        public var digest: String
        public var tracks: Int

        public init(file: String, genre: String, digest: String, tracks: Int) {
            self.file = file; self.genre = genre; self.digest = digest; self.tracks = tracks
        }
    }

    /// Every file Spindle wrote under `folder` (an absolute path without a trailing slash).
    public static func written(_ db: Database, in folder: String) throws -> [Written] {
        try Row.fetchAll(db, sql: "SELECT file, genre, digest, tracks FROM playlists WHERE file LIKE ? ESCAPE '\\' ORDER BY file",
                         arguments: [likePrefix(folder + "/")])
            .filter { (try $0.at(0) as String).dropFirst(folder.count + 1).contains("/") == false }
            .map { try Written(file: $0.at(0), genre: $0.at(1), digest: $0.at(2), tracks: $0.at(3)) }
    }

    public static func record(_ db: Database, _ written: Written) throws {
        try db.execute(sql: """
            INSERT INTO playlists (file, genre, digest, tracks, written_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(file) DO UPDATE SET genre = excluded.genre, digest = excluded.digest, tracks = excluded.tracks,
                written_at = excluded.written_at
            """, arguments: [written.file, written.genre, written.digest, written.tracks, Date()])
    }

    public static func forget(_ db: Database, file: String) throws {
        try db.execute(sql: "DELETE FROM playlists WHERE file = ?", arguments: [file])
    }

    static func likePrefix(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }
}
