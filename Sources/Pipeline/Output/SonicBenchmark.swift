import Analysis
import Foundation
import GRDB
import Similarity
import Store

/// `spindle bench --sonic N`: a synthetic library of N tracks (feature vectors and tagger embeddings and tags, clustered, with tempi and keys) in a
/// temporary database, and the time `similar`, `mix` and `genres build` take on it, with peak memory.
public struct SonicBenchmark: Sendable {
    public var tracks = 0
    public var fillSeconds = 0.0
    /// Reading the library and building the space: what every `similar` command pays before its query.
    public var loadSeconds = 0.0
    public var querySecondsMedian = 0.0
    public var querySecondsP99 = 0.0
    public var mixSeconds = 0.0
    public var pathSeconds = 0.0
    public var genresBuildSeconds = 0.0
    public var genres = 0
    public var peakRSSMB = 0.0

    /// `keep`: a new folder to leave the library in (`spindle.db`, its root an empty `music/`), every track with a
    /// Navidrome and a Jellyfin id and an artist credit on each, for benchmarks of `spindle serve`'s AudioMuse API.
    public static func run(tracks n: Int, queries: Int = 200, keep: String? = nil) throws -> SonicBenchmark {
        let folder = keep ?? NSTemporaryDirectory() + "spindle-sonic-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder + "/music", withIntermediateDirectories: true)
        defer { if keep == nil { try? FileManager.default.removeItem(atPath: folder) } }
        let database = try SpindleDatabase(path: folder + (keep == nil ? "/bench.db" : "/spindle.db"))
        var report = SonicBenchmark(tracks: n)
        var started = monotonicSeconds()
        let rootId = try fill(database, tracks: n, root: folder + "/music", withServerIds: keep != nil)
        report.fillSeconds = monotonicSeconds() - started

        started = monotonicSeconds()
        guard let space = try SonicLibrary.load(database, rootId: rootId).space() else {
            throw PipelineError("the synthetic library has no feature vectors")
        }
        report.loadSeconds = monotonicSeconds() - started
        var rng = SystemRandomNumberGenerator()
        var times: [Double] = []
        for _ in 0..<queries {
            let row = Int.random(in: 0..<space.count, using: &rng)
            let t = monotonicSeconds()
            let found = space.nearest(to: row, count: 10)
            _ = found.map { space.why(row, $0.row) }
            times.append(monotonicSeconds() - t)
        }
        times.sort()
        report.querySecondsMedian = times[times.count / 2]
        report.querySecondsP99 = times[min(times.count - 1, Int(Double(times.count) * 0.99))]
        started = monotonicSeconds()
        _ = MixPlanner(space: space).plan(seed: space.count / 2, count: 25)
        report.mixSeconds = monotonicSeconds() - started
        started = monotonicSeconds()
        _ = SongPath(space: space).plan(from: 0, to: space.count - 1, count: 25)
        report.pathSeconds = monotonicSeconds() - started

        started = monotonicSeconds()
        report.genres = try GenresStage.build(database: database, rootId: rootId).genres
        report.genresBuildSeconds = monotonicSeconds() - started
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        report.peakRSSMB = Double(usage.ru_maxrss) / 1024
        return report
    }

    /// N tracks around 16 centres in the feature space and in the tagger's embedding and tags (so the space
    /// is measured on the embedding, as a library with the tagger is), with a tempo and key per centre and
    /// some spread.
    static func fill(_ database: SpindleDatabase, tracks n: Int, root: String, withServerIds: Bool) throws -> Int64 {
        let names = FeatureVector.names
        var rng = SeededRandom(seed: 0x50_41_1c)
        let centres = (0..<16).map { _ in names.map { _ in Float(rng.normal() * 1.5) } }
        let embeddings = (0..<16).map { _ in (0..<SonicSpace.embeddingWidth).map { _ in Float(rng.normal() * 1.5) } }
        let tagged = (0..<16).map { _ in MusicnnTags.names.map { _ in Float(rng.unit() * 0.3) } }
        let tempi = (0..<16).map { _ in 70 + 110 * rng.unit() }
        return try database.writer.write { db in
            let rootId = try FileQueries.ensureRoot(db, path: root)
            let records = (0..<n).map { i in
                FileRecord(rootId: rootId, path: String(format: "Artist %04d/Album/%06d.flac", i % 5000, i), size: 1, mtimeNs: 0,
                           inode: nil, contentKey: "k\(i)")
            }
            let ids = try FileQueries.applyScan(db, rootId: rootId, updates: [], moved: [], inserts: records, at: Date())
            for (i, id) in ids.enumerated() {
                let c = i % centres.count
                let vector = FeatureVector(values: centres[c].map { $0 + Float(rng.normal()) })
                var write = AnalysisWrite(fileId: id, contentKey: "k\(i)", status: .ok, seconds: 0,
                                          versions: ["features": 1, TagAnalyzer.entry.name: TagAnalyzer.entry.version])
                write.values = ["bpm": (tempi[c] * (1 + 0.04 * rng.normal())).databaseValue,
                                "key": MusicalKey(tonic: Int(rng.next() % 12), minor: rng.next() % 2 == 0).name.databaseValue,
                                "lufs_integrated": (-14 + 3 * rng.normal()).databaseValue,
                                "features": vector.encoded.databaseValue,
                                "embedding": FloatBlob.encode(embeddings[c].map { $0 + Float(rng.normal()) }).databaseValue,
                                "tag_probabilities": FloatBlob.encode(tagged[c].map { min(1, max(0, $0 + Float(rng.normal() * 0.05))) }).databaseValue]
                write.featureDimensions = (1, names)
                try AnalysisQueries.save(write, in: db)
                if withServerIds { try serverIds(db, track: i, fileId: id, path: records[i].path) }
            }
            return rootId
        }
    }

    /// Track `i`'s ids: Navidrome's `nd000042`, Jellyfin's 32 hex digits; its artist is its top folder.
    static func serverIds(_ db: Database, track i: Int, fileId: Int64, path: String) throws {
        let artist = String(path.split(separator: "/")[0]), artistNumber = i % 5000
        var navidrome = NavidromeTrackRecord(navidromeId: String(format: "nd%06d", i), fileId: fileId, navidromePath: path,
                                             strategy: 1, tried: "[]")
        try navidrome.insert(db)
        var jellyfin = JellyfinTrackRecord(jellyfinId: String(format: "%032x", i), fileId: fileId, jellyfinPath: "/music/" + path,
                                           strategy: 2, tried: "[]")
        try jellyfin.insert(db)
        var credit = MediaServerArtistRecord(server: .navidrome, trackId: navidrome.navidromeId,
                                             artistId: String(format: "ar%04d", artistNumber), artistName: artist)
        try credit.insert(db)
        credit = MediaServerArtistRecord(server: .jellyfin, trackId: jellyfin.jellyfinId,
                                         artistId: String(format: "%032x", 0xa000_0000 + artistNumber), artistName: artist)
        try credit.insert(db)
    }

    public func text() -> String {
        String(format: """
            synthetic library: %d tracks (written in %.1f s)
            load + space: %.0f ms (every `similar` command pays this once)
            similar query (10 neighbours with why): median %.2f ms, p99 %.2f ms
            mix of 25: %.0f ms
            path of 25: %.0f ms
            genres build: %.1f s (%d genres)
            peak RSS: %.0f MB
            """, tracks, fillSeconds, loadSeconds * 1000, querySecondsMedian * 1000, querySecondsP99 * 1000,
                      mixSeconds * 1000, pathSeconds * 1000, genresBuildSeconds, genres, peakRSSMB)
    }

    public func json() -> JSONValue {
        .object([("tracks", .from(tracks)), ("load_ms", .from(loadSeconds * 1000, digits: 1)),
                 ("similar_median_ms", .from(querySecondsMedian * 1000, digits: 3)),
                 ("similar_p99_ms", .from(querySecondsP99 * 1000, digits: 3)), ("mix_ms", .from(mixSeconds * 1000, digits: 1)),
                 ("path_ms", .from(pathSeconds * 1000, digits: 1)),
                 ("genres_build_s", .from(genresBuildSeconds, digits: 2)), ("genres", .from(genres)),
                 ("peak_rss_mb", .from(peakRSSMB, digits: 1))])
    }
}
