import Foundation
import GRDB

/// The `tracks` table (tags read from the files).
public enum TrackQueries {
    /// Present files of the root whose tags were never read or were read from other content; every present file
    /// with `all`.
    public static func filesToRead(_ db: Database, rootId: Int64, all: Bool = false) throws -> [(fileId: Int64, path: String, contentKey: String?)] {
        try Row.fetchAll(db, sql: """
            SELECT f.id, f.path, f.content_key FROM files f LEFT JOIN tracks t ON t.file_id = f.id
            WHERE f.root_id = ? AND f.status = 'present'
              AND (? OR t.file_id IS NULL OR t.content_key IS NOT f.content_key OR t.unread_at IS NOT NULL)
            ORDER BY f.path
            """, arguments: [rootId, all]).map { try ($0.at(0), $0.at(1), $0.at(2)) }
    }

    /// A run could not read the file (a read error, the file out of reach): the tags of its content stay, and
    /// the next run reads them again (`filesToRead`).
    public static func markUnread(_ db: Database, fileId: Int64, contentKey: String?) throws {
        try Store.markUnread(of: TrackRecord.self, fileId: fileId, contentKey: contentKey, in: db)
    }

    /// Marks these files' tags to be read again by the next tags stage, whatever content they were read for.
    public static func readAgain(_ db: Database, fileIds: [Int64]) throws {
        try forgetContent(of: TrackRecord.self, fileIds: fileIds, in: db)
    }

    public static func track(_ db: Database, fileId: Int64) throws -> TrackRecord? {
        try TrackRecord.fetchOne(db, key: fileId)
    }

    public static func save(_ db: Database, _ tracks: [TrackRecord]) throws {
        for var track in tracks { try track.upsert(db) }
    }
}
