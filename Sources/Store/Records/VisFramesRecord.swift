import Foundation
import GRDB

public struct VisFramesRecord: SnakeCaseRecord, Sendable {
    public static let databaseTableName = "vis_frames"
    public var fileId: Int64
    public var fps: Double
    public var bands: Int
    public var count: Int
    public var data: Data

    public init(fileId: Int64, fps: Double, bands: Int, count: Int, data: Data) {
        self.fileId = fileId; self.fps = fps; self.bands = bands; self.count = count; self.data = data
    }
}
