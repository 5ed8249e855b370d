import Hummingbird
import Pipeline
import Similarity

/// `/similar?relative_path=&n=` and `/mix?seed=&n=&format=json|m3u`: the answers of `spindle similar
/// --json` and `spindle mix`, from the sonic space the server keeps in memory.
struct SonicRoutes: Sendable {
    let library: ServedLibrary
    let cache: SonicCache
    let options: ServeOptions

    func similar(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let readings = try query.pathReadings("relative_path")
        let count = try query.integer("n", default: 10, in: 1...options.maxTracks)
        let report = SimilarReport.make(try await locate(readings), count: count)
        return JSONBody.response(report.json())
    }

    func mix(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let seed = try query.pathReadings("seed")
        let count = try query.integer("n", default: 25, in: 1...options.maxTracks)
        guard let format = MixReport.Format(rawValue: query["format"] ?? "json") else {
            throw APIError(.badRequest, "format must be json or m3u")
        }
        let report = MixReport.make(try await locate(seed), count: count)
        return format == .json
            ? JSONBody.response(report.json())
            : JSONBody.bytes(Array(report.render(.m3u).utf8), contentType: "audio/x-mpegurl; charset=utf-8")
    }

    /// The track in the space: 400 when the path is refused, 404 with the paths tried when it is not in the
    /// library, 404 when it has no feature vector yet.
    private func locate(_ readings: [String]) async throws -> SonicQuery {
        let (open, space) = try await cache.current(library)
        let input = try open.pathReading(readings)
        let query: SonicQuery
        do { query = try await Blocking.run { try SonicQuery.locate(input, in: space, resolver: open.resolver) } } catch {
            throw APIError.unavailable(ServedLibrary.describe(error))
        }
        if let failure = query.resolution?.apiError { throw failure }
        if query.row == nil {
            throw APIError(.notFound, query.problem ?? "no feature vector", [("relative_path", .from(query.resolved))])
        }
        return query
    }
}
