import Foundation
import GRDB

public struct AnalysisRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "analysis"
    public enum Status: String, Codable, Sendable { case ok, error }
    public var fileId: Int64
    public var contentKey: String?
    /// The single analyzer version of schemas before v8; kept for old readers, no longer decides staleness.
    public var analyzerVersion: Int
    /// JSON object: each analyzer's name → the version whose results this row holds (AnalysisVersions).
    public var analyzerVersions: String?
    public var analyzedAt: Date
    public var status: Status
    public var error: String?
    public var damage: String?
    public var codec: String?
    public var durationS: Double?
    public var sampleRate: Int?
    public var channels: Int?
    public var bpm: Double?
    public var bpmConfidence: Double?
    public var firstBeatS: Double?
    public var bpmAlternative: Double?
    public var lufsIntegrated: Double?
    public var loudnessRangeLu: Double?
    public var truePeakDbtp: Double?
    public var samplePeakDbfs: Double?
    public var replaygainTrackGainDb: Double?
    public var leadSilenceEndS: Double?
    public var trailSilenceStartS: Double?
    public var isSilent: Bool?
    public var framesFps: Double?
    public var framesBands: Int?
    public var framesCount: Int?
    public var seconds: Double?
    public var crashes: Int = 0
    public var spectrumLow: Double?
    public var spectrumMid: Double?
    public var spectrumHigh: Double?
    public var loudnessBlocks: Data?
    public var key: String?
    public var keyStrength: Double?

    public init(fileId: Int64, contentKey: String?, analyzerVersion: Int, status: Status, analyzedAt: Date = Date()) {
        self.fileId = fileId; self.contentKey = contentKey; self.analyzerVersion = analyzerVersion
        self.status = status; self.analyzedAt = analyzedAt
    }
}
