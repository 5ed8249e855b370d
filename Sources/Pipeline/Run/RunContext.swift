import Foundation
import GRDB
import Library
import Store

/// Everything the stages of one run share: the database and its lock, the root, the journal, the settings,
/// and the worker pool (started on first use).
final class RunContext {
    let database: SpindleDatabase
    let root: LibraryRoot
    let rootId: Int64
    let settings: Settings
    let journal: RunJournal
    let verbosity: Verbosity
    let force: Bool
    private var workers: WorkerPool?

    init(database: SpindleDatabase, root: LibraryRoot, rootId: Int64, settings: Settings, journal: RunJournal,
         verbosity: Verbosity, force: Bool) {
        self.database = database
        self.root = root
        self.rootId = rootId
        self.settings = settings
        self.journal = journal
        self.verbosity = verbosity
        self.force = force
    }

    func pool() throws -> WorkerPool {
        if let workers { return workers }
        let pool = try WorkerPool(settings: settings)
        workers = pool
        return pool
    }
}
