import GRDB

/// Clears the content key that `Record`'s rows of these files were made from (500 files a statement), so
/// that nothing takes them for results of what the files hold now until they are made again: tags read
/// again (`TrackQueries.readAgain`), analyses made stale (`AnalysisQueries.makeStale`).
func forgetContent<Record: TableRecord>(of record: Record.Type, fileIds: [Int64], in db: Database) throws {
    for chunk in stride(from: 0, to: fileIds.count, by: 500) {
        try Record.filter(keys: fileIds[chunk..<min(fileIds.count, chunk + 500)]).updateAll(db, Column("content_key").set(to: nil))
    }
}
