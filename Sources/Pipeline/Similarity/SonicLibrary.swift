import Analysis
import Foundation
import Similarity
import Store

/// One root's present tracks as genre building, `similar`, `mix`, playlists and the report's map read
/// them: tags, analysis, and the feature vectors of the features analyzer's version most rows hold
/// (rows of another version wait for their re-analysis and are left out of the sonic space meanwhile).
public struct SonicLibrary: Sendable {
    /// What the sonic space measures, for help texts (the command line imports no Similarity).
    public static let weighting = SonicSpace.description

    public var rows: [(fileId: Int64, input: TrackInput)]
    public var featureNames: [String]

    public static func load(_ database: SpindleDatabase, rootId: Int64) throws -> SonicLibrary {
        let (stored, dimensions) = try database.writer.read { db in
            (try GenreQueries.inputs(db, rootId: rootId), try GenreQueries.featureDimensions(db))
        }
        var perVersion: [Int: Int] = [:]
        for row in stored where row.features != nil { perVersion[row.featuresVersion ?? 0, default: 0] += 1 }
        let version = perVersion.max { ($0.value, $0.key) < ($1.value, $1.key) }?.key
        let names = version.flatMap { dimensions[$0] } ?? []
        // Embeddings of one tagger version only, as with the vectors: another version's wait for their re-analysis.
        var perTagger: [Int: Int] = [:]
        for row in stored where row.embedding != nil { perTagger[row.taggerVersion ?? 0, default: 0] += 1 }
        let tagger = perTagger.max { ($0.value, $0.key) < ($1.value, $1.key) }?.key
        let rows = stored.map { row in
            let t = row.track
            let vector = row.featuresVersion == version && !names.isEmpty
                ? row.features.flatMap { FeatureVector(encoded: $0)?.values }.flatMap { $0.count == names.count ? $0 : nil } : nil
            return (row.fileId, TrackInput(path: row.path, title: t?.title, artist: t?.artist ?? t?.albumArtist, album: t?.album,
                                           genres: t?.genreList ?? [], year: t?.year, languageTag: t?.language,
                                           country: t?.releaseCountry, bpm: row.bpm, lufs: row.lufs,
                                           loudnessRange: row.loudnessRange, features: vector,
                                           key: row.key.flatMap(MusicalKey.init(name:)), duration: row.decodedDuration ?? t?.durationS,
                                           bpmConfidence: row.bpmConfidence, bpmAlternative: row.bpmAlternative,
                                           soundingDuration: row.soundingDuration,
                                           tags: row.taggerVersion == tagger ? row.tagProbabilities.flatMap(FloatBlob.decode) : nil,
                                           embedding: row.taggerVersion == tagger ? row.embedding.flatMap(FloatBlob.decode) : nil))
        }
        return SonicLibrary(rows: rows, featureNames: names)
    }

    public var inputs: [TrackInput] { rows.map(\.input) }

    /// The sonic space over the tracks that have a vector; nil when fewer than two do.
    public func space() -> SonicSpace? { SonicSpace(inputs, names: featureNames) }
}
