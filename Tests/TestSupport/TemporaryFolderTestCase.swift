import Foundation
import XCTest

/// A test case with a fresh folder (`dir`) for the files it writes, removed afterwards.
open class TemporaryFolderTestCase: XCTestCase {
    public var dir = ""

    open override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory(String(describing: type(of: self)))
    }

    open override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }
}
