import Foundation
@testable import Store
import XCTest

final class DatabaseFilesTests: XCTestCase {
    /// A database on a share is found from the mount table: the longest mount point holding its folder, with
    /// the kernel's escapes undone, and only the file systems that live on another machine count.
    func testADatabaseFolderOnANetworkShareIsToldFromTheMountTable() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("spindle-mounts-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        for folder in ["share/db", "share/local disk", "shared", "pool", "sshfs"] {
            try FileManager.default.createDirectory(atPath: base + "/" + folder, withIntermediateDirectories: true)
        }
        let real = try XCTUnwrap(realpath(base, nil).map { p in defer { free(p) }; return String(cString: p) })
        let table = """
            22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
            40 22 0:50 / \(real)/share rw,relatime shared:20 - nfs4 nas:/music rw,vers=4.2
            41 40 8:17 / \(real)/share/local\\040disk rw - ext4 /dev/sdb1 rw
            42 22 0:52 / \(real)/pool rw - fuse.mergerfs pool rw
            43 22 0:53 / \(real)/sshfs rw - fuse.sshfs me@nas:/ rw
            """
        func type(_ folder: String) -> String? { DatabaseFiles.networkFileSystem(holding: base + "/" + folder, mountTable: table) }
        XCTAssertEqual(type("share/db"), "nfs4")
        XCTAssertEqual(type("share"), "nfs4")
        XCTAssertNil(type("share/local disk"), "a local disk mounted inside the share")
        XCTAssertNil(type("shared"), "a name that only begins like the share's")
        XCTAssertNil(type("pool"), "mergerfs pools local disks")
        XCTAssertEqual(type("sshfs"), "fuse.sshfs")
        XCTAssertNil(DatabaseFiles.networkFileSystem(holding: base + "/not there", mountTable: table))
        // What runs and the server say: the database, the share's type, and where to keep it instead.
        let warning = try XCTUnwrap(DatabaseFiles.networkShareWarning(base + "/share/db/spindle.db", mountTable: table))
        XCTAssertTrue(warning.contains("spindle.db is on a network file system (nfs4)") && warning.contains("local disk (--db"), warning)
        XCTAssertNil(DatabaseFiles.networkShareWarning(base + "/pool/spindle.db", mountTable: table))
    }
}
