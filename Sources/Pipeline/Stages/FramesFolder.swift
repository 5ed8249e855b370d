import Foundation

/// The folder where workers leave visualiser frames for the analyze stage (`FramesHandoff.file`):
/// `<database>.frames-<pid>` beside the database, made when the stage starts and removed when it ends. Beside
/// the database rather than in /tmp, which is often memory (tmpfs), and on the disk the frames go to anyway.
/// The stage runs under the run lock, so another such folder of this database is a killed run's: it goes too.
enum FramesFolder {
    /// The folder, made empty; nil when it cannot be made (the frames then travel in the replies).
    static func make(for databasePath: String) -> String? {
        let database = RunLock.realPath(databasePath)
        removeAbandoned(of: database)
        let folder = database + ".frames-\(getpid())"
        remove(folder)
        return mkdir(folder, 0o700) == 0 ? folder : nil
    }

    static func remove(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func removeAbandoned(of database: String) {
        let parent = (database as NSString).deletingLastPathComponent
        let prefix = (database as NSString).lastPathComponent + ".frames-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for name in names where name.hasPrefix(prefix) && Int32(name.dropFirst(prefix.count)) != nil {
            remove(parent + "/" + name)
        }
    }
}
