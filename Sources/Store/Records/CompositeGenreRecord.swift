import Foundation
import GRDB

/// One composite genre of the last `genres build`.
public struct CompositeGenreRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "composite_genres"
    public enum Kind: String, Codable, Sendable { case rule, cluster }
    public var id: Int64?
    public var name: String
    public var kind: Kind
    public var confidence: Double
    public var size: Int
    public var description: String
    public var builtAt: Date
    /// The library root whose tracks it was built from (nil only for a genre an older Spindle built empty).
    public var rootId: Int64?

    public init(name: String, kind: Kind, confidence: Double, size: Int, description: String, builtAt: Date = Date(),
                rootId: Int64? = nil) {
        self.name = name; self.kind = kind; self.confidence = confidence; self.size = size
        self.description = description; self.builtAt = builtAt; self.rootId = rootId
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A track's membership of a composite genre, with its score and why.
public struct GenreMembershipRecord: SnakeCaseRecord, Sendable, Equatable {
    public static let databaseTableName = "genre_memberships"
    public var genreId: Int64
    public var fileId: Int64
    public var score: Double
    public var explanation: String

    public init(genreId: Int64, fileId: Int64, score: Double, explanation: String) {
        self.genreId = genreId; self.fileId = fileId; self.score = score; self.explanation = explanation
    }
}
