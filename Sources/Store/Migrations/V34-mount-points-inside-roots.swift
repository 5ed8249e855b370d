import Foundation
import GRDB

extension Migrations {
    static func v34MountPointsInsideRoots(_ db: Database) throws {
        // JSON object: each folder inside the root that is another device's mount point, with that device.
        // One found empty later on another device is a disk or share not mounted, not an album deleted file by file.
        try db.execute(sql: "ALTER TABLE library_roots ADD COLUMN mount_points TEXT")
    }
}
