import Foundation
import GRDB

/// Marks `Record`'s row of a file that a run could not read (a read error, the file out of reach) while the
/// row is of the content the scan last saw: it stays the file's, and the next run reads the file again
/// (`AnalysisQueries.markUnread`, `TrackQueries.markUnread`). A row of other content is left as it is.
func markUnread<Record: TableRecord>(of record: Record.Type, fileId: Int64, contentKey: String?, in db: Database) throws {
    try db.execute(sql: "UPDATE \(Record.databaseTableName) SET unread_at = ? WHERE file_id = ? AND content_key IS ?",
                   arguments: [Date(), fileId, contentKey])
}
