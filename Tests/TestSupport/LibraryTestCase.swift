import Foundation
import XCTest

/// A test case with a fresh folder holding a library (`library`, created empty) and a database path (`db`),
/// removed afterwards, and `spindle(...)` to run the command line against them.
open class LibraryTestCase: TemporaryFolderTestCase {
    public var library = ""
    public var db = ""

    open override func setUpWithError() throws {
        try super.setUpWithError()
        library = dir + "/music"
        db = dir + "/spindle.db"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
    }

    /// `spindle --db DB --library LIBRARY ARGUMENTS...`
    public func spindle(_ arguments: [String], environment: [String: String] = [:]) throws -> CLI.Result {
        try CLI.run(["--db", db, "--library", library] + arguments, environment: environment)
    }
}
