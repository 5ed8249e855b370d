import Analysis
import Foundation
import GRDB
import Similarity
import Store

/// `spindle bench --sonic N`: a synthetic library of N feature vectors (clustered, with tempi and keys) in a
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

    public static func run(tracks n: Int, queries: Int = 200) throws -> SonicBenchmark {
        let folder = NSTemporaryDirectory() + "spindle-sonic-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try SpindleDatabase(path: folder + "/bench.db")
        var report = SonicBenchmark(tracks: n)
        var started = monotonicSeconds()
        let rootId = try fill(database, tracks: n)
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

    /// N tracks around 16 centres in the feature space, with a tempo and key per centre and some spread.
    static func fill(_ database: SpindleDatabase, tracks n: Int) throws -> Int64 {
        let names = FeatureVector.names
        var rng = SeededRandom(seed: 0x50_41_1c)
        let centres = (0..<16).map { _ in names.map { _ in Float(rng.normal() * 1.5) } }
        let tempi = (0..<16).map { _ in 70 + 110 * rng.unit() }
        return try database.writer.write { db in
            let rootId = try FileQueries.ensureRoot(db, path: "/synthetic")
            let records = (0..<n).map { i in
                FileRecord(rootId: rootId, path: String(format: "Artist %04d/Album/%06d.flac", i % 5000, i), size: 1, mtimeNs: 0,
                           inode: nil, contentKey: "k\(i)")
            }
            let ids = try FileQueries.applyScan(db, rootId: rootId, updates: [], moved: [], inserts: records, at: Date())
            for (i, id) in ids.enumerated() {
                let c = i % centres.count
                let vector = FeatureVector(values: centres[c].map { $0 + Float(rng.normal()) })
                var write = AnalysisWrite(fileId: id, contentKey: "k\(i)", status: .ok, seconds: 0, versions: ["features": 1])
                write.values = ["bpm": (tempi[c] * (1 + 0.04 * rng.normal())).databaseValue,
                                "key": MusicalKey(tonic: Int(rng.next() % 12), minor: rng.next() % 2 == 0).name.databaseValue,
                                "lufs_integrated": (-14 + 3 * rng.normal()).databaseValue,
                                "features": vector.encoded.databaseValue]
                write.featureDimensions = (1, names)
                try AnalysisQueries.save(write, in: db)
            }
            return rootId
        }
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
