import HTTPTypes
import Hummingbird
import Pipeline
import Store

/// `/visualizer/frames?relative_path=`: the stored visualiser frames as the companion served them (a JSON
/// array of frames, each an array of band levels 0..1), or with `format=bytes` the stored form: one byte
/// per band, frame after frame, its shape in `X-Frames-*` headers. `start` and `seconds` (optional, in
/// seconds) ask for a stretch only: a 40-minute symphony's frames are some 12 MB of JSON, a phone's whole
/// budget for one screen. Frame `i` is the one at `i / fps` s; `X-Frames-Start` is the first one's index.
struct FramesRoute: Sendable {
    let library: ServedLibrary

    func frames(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let readings = try query.pathReadings("relative_path")
        let format = query["format"] ?? "json"
        guard format == "json" || format == "bytes" else {
            throw APIError(.badRequest, "format must be json or bytes")
        }
        let start = try query.seconds("start") ?? 0
        let length = try query.seconds("seconds", positive: true)
        let open = try library.current()
        let resolution = try open.resolve(try open.pathReading(readings))
        if let failure = resolution.apiError { throw failure }
        let path = resolution.resolved!
        let stored = try library.read(in: open) { open, db in try ServeQueries.frames(db, rootId: open.rootId, path: path) }
        guard let stored else {
            throw APIError(.notFound, "no visualiser frames for \(path): not analysed yet", [("relative_path", .string(path))])
        }
        // Whole frames from the one at or before `start` to the one that covers its end; clamped to the frames
        // the stored bytes hold, so no request reads past them.
        let total = stored.bands > 0 ? stored.data.count / stored.bands : 0
        let first = Int(min(Double(total), (start * stored.fps).rounded(.down)))
        let end = length.map { min(total, first + Int(min(Double(total), ($0 * stored.fps).rounded(.up)))) } ?? total
        let bytes = [UInt8](stored.data.dropFirst(first * stored.bands).prefix((end - first) * stored.bands))
        var response = format == "bytes"
            ? JSONBody.bytes(bytes, contentType: "application/octet-stream")
            : JSONBody.bytes(FramesJSON.encode(bands: stored.bands, data: bytes))
        response.headers[values: HTTPField.Name("X-Frames-Fps")!] = [String(stored.fps)]
        response.headers[values: HTTPField.Name("X-Frames-Bands")!] = [String(stored.bands)]
        response.headers[values: HTTPField.Name("X-Frames-Count")!] = [String(end - first)]
        response.headers[values: HTTPField.Name("X-Frames-Start")!] = [String(first)]
        return response
    }
}
