import Foundation
import Hummingbird
import Library
import Pipeline
import Store

/// `/smart-dj/profile` and `/smart-dj/bulk-profiles`: a track's analysis as the Navidrome companion served
/// it (`bpm`, `silence_start`, `silence_end`, `lufs`), plus Spindle's other results under their own names.
struct ProfileRoutes: Sendable {
    let library: ServedLibrary
    let options: ServeOptions

    func profile(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let readings = try query.pathReadings("relative_path")
        let profile = try await Blocking.run {
            let open = try library.current()
            return try lookup(try open.pathReading(readings), in: open).get()
        }
        return JSONBody.response(profile)
    }

    /// GET `?paths=a,b,c` (the companion's form; a name with a comma is put back together when the joined
    /// path is a library file) or POST a JSON list (or `{"paths": [...]}`) for any path with a comma and
    /// lists too long for a URL. Answers a map from each path asked to its profile or to an
    /// `{"error", "status", ...}` object.
    func bulk(_ request: Request, context: some RequestContext) async throws -> Response {
        if request.method == .post {
            var request = request
            let body = try await request.collectBody(upTo: options.maxBodyBytes)
            let paths = try Self.pathList(Data(buffer: body))
            return JSONBody.response(try await Blocking.run { try answers(paths, in: nil) })
        }
        let readings = try QueryString(request.uri.query).pathReadings("paths")
        return JSONBody.response(try await Blocking.run {
            // One library for the whole request: the names joined back together are resolved and read in the
            // same database, even when it is replaced meanwhile.
            let current = try library.current()
            let paths = try Self.commaSeparated(readings, limit: options.maxPaths) { try current.resolveExactly($0).isExact }
            return try answers(paths, in: current)
        })
    }

    /// Each path's profile or error, under the path asked.
    private func answers(_ paths: [String], in open: ServedLibrary.Open?) throws -> JSONValue {
        guard paths.count <= options.maxPaths else {
            throw APIError(.contentTooLarge, "\(paths.count) paths in one request; the limit is \(options.maxPaths)",
                           [("limit", .from(options.maxPaths))])
        }
        let served = try open ?? library.current()
        var seen = Set<String>()
        var answers: [(String, JSONValue)] = []
        for path in paths where seen.insert(path).inserted {
            switch try lookup(path, in: served) {
            case .success(let profile): answers.append((path, profile))
            case .failure(let error): answers.append((path, error.body()))
            }
        }
        return .object(answers)
    }

    /// The companion's comma-separated list, with the names that hold a comma put back together: artists
    /// like "Crosby, Stills & Nash" and titles like "Hello, Goodbye" are common, and split at their commas
    /// they asked for fragments, each answered with a 404 or a guess, and never for the path the client
    /// sent. A fragment that is not itself a library file's path is joined with the ones after it up to the
    /// next that ends in an audio file's extension (within `lookahead`) when together they are one (`isFile`:
    /// strategies 1–2). Only what could name a library file is looked up, an audio file's name, so each fragment
    /// costs at most two lookups (a list of 3,999 fragments cost 0.5 s of lookups before its 413 answer).
    /// `readings` are the list's readings (`QueryString.pathReadings`: with `+` as a space, then as itself),
    /// whose commas stand at the same places; each path is taken in the first reading that is a file, else
    /// in the first. A list of more than twice `limit` non-empty fragments is refused before any lookup.
    static func commaSeparated(_ readings: [String], limit: Int, lookahead: Int = 8,
                               isFile: (String) throws -> Bool) throws -> [String] {
        let split = readings.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let fragments = split[0]
        let named = fragments.filter { !$0.isEmpty }.count
        guard named <= 2 * limit else {
            throw APIError(.contentTooLarge, "\(named) comma-separated paths or parts of paths in one request; the limit is "
                + "\(limit) paths", [("limit", .from(limit))])
        }
        guard fragments.count > 1 || readings.count > 1 else { return fragments.filter { !$0.isEmpty } }
        func audioName(_ fragment: String) -> Bool {
            AudioFileTypes.isAudio(String(fragment.trimmingCharacters(in: .whitespaces).split(separator: "/").last ?? ""))
        }
        /// The fragments `range` joined, in the first reading that is a library file.
        func file(_ range: ClosedRange<Int>) throws -> String? {
            for fragments in split {
                let path = fragments[range].joined(separator: ",")
                if !path.isEmpty, try isFile(path) { return path }
            }
            return nil
        }
        var paths: [String] = []
        var i = 0
        while i < fragments.count {
            var path = audioName(fragments[i]) ? try file(i...i) : nil
            var end = i
            if path == nil, !fragments[i].isEmpty,
               let j = fragments.indices.dropFirst(i + 1).prefix(lookahead).first(where: { audioName(fragments[$0]) }),
               let joined = try file(i...j) {
                path = joined
                end = j
            }
            let taken = path ?? fragments[i]
            if !taken.isEmpty { paths.append(taken) }
            i = end + 1
        }
        return paths
    }

    /// A path's profile, or the client's error (refused, not found with the paths tried, not analysed).
    /// Database failures are thrown: they are the server's, not this path's.
    func lookup(_ input: String, in open: ServedLibrary.Open) throws -> Result<JSONValue, APIError> {
        let resolution = try open.resolve(input)
        if let failure = resolution.apiError { return .failure(failure) }
        let path = resolution.resolved!
        let profile = try library.read(in: open) { open, db in try ServeQueries.profile(db, rootId: open.rootId, path: path) }
        guard let profile, profile.analysis.status == .ok, profile.current else {
            let why = profile?.analysis.status == .ok
                ? "it changed since it was analysed, and the next analysis run analyses it again"
                : profile?.analysis.error.map { "analysis failed: \($0)" } ?? "not analysed yet"
            return .failure(APIError(.notFound, "no profile for \(path): \(why)", [("relative_path", .string(path))]))
        }
        return .success(Self.json(profile, resolution: resolution))
    }

    static func json(_ profile: TrackProfile, resolution: Resolution) -> JSONValue {
        let p = profile.analysis
        return .object([
            ("relative_path", .string(profile.path)),
            // The companion's four, with its meaning: silence_start is where TRAILING silence begins,
            // silence_end where LEADING silence ends (the smart_dj_profiles view's mapping).
            ("bpm", .from(p.bpm, digits: 2)),
            ("silence_start", .from(p.trailSilenceStartS, digits: 4)),
            ("silence_end", .from(p.leadSilenceEndS, digits: 4)),
            ("lufs", .from(p.lufsIntegrated, digits: 2)),
            ("bpm_confidence", .from(p.bpmConfidence, digits: 3)),
            ("first_beat_s", .from(p.firstBeatS, digits: 3)),
            ("bpm_alternative", .from(p.bpmAlternative, digits: 2)),
            ("lufs_integrated", .from(p.lufsIntegrated, digits: 2)),
            ("loudness_range_lu", .from(p.loudnessRangeLu, digits: 2)),
            ("true_peak_dbtp", .from(p.truePeakDbtp, digits: 2)),
            ("sample_peak_dbfs", .from(p.samplePeakDbfs, digits: 2)),
            ("replaygain_track_gain_db", .from(p.replaygainTrackGainDb, digits: 2)),
            ("lead_silence_end_s", .from(p.leadSilenceEndS, digits: 4)),
            ("trail_silence_start_s", .from(p.trailSilenceStartS, digits: 4)),
            ("is_silent", .from(p.isSilent)),
            ("duration_s", .from(p.durationS, digits: 3)),
            ("key", .from(p.key)),
            ("key_strength", .from(p.keyStrength, digits: 3)),
            ("frames_count", .from(p.framesCount)),
            ("top_tags", .topTags(encoded: profile.tagProbabilities)),
            ("analyzed_at", .string(p.analyzedAt.ISO8601Format())),
            ("resolved_by", .from(resolution.strategy)),
        ])
    }

    /// A bulk POST's body: a JSON array of strings, or an object with one under "paths".
    static func pathList(_ data: Data) throws -> [String] {
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: data) } catch {
            throw APIError(.badRequest, "the body is not JSON: send a list of paths, or {\"paths\": [...]}")
        }
        let list = (parsed as? [Any]) ?? ((parsed as? [String: Any])?["paths"] as? [Any])
        guard let list, let paths = list as? [String] else {
            throw APIError(.badRequest, "the body must be a JSON list of path strings, or {\"paths\": [...]}")
        }
        return paths
    }
}
