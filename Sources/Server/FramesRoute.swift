import HTTPTypes
import Hummingbird
import Pipeline
import Store

/// `/visualizer/frames?relative_path=`: the stored visualiser frames as the companion served them (a JSON
/// array of frames, each an array of band levels 0..1), or with `format=bytes` the stored form: one byte
/// per band, frame after frame, its shape in `X-Frames-*` headers.
struct FramesRoute: Sendable {
    let library: ServedLibrary

    func frames(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let readings = try query.pathReadings("relative_path")
        let format = query["format"] ?? "json"
        guard format == "json" || format == "bytes" else {
            throw APIError(.badRequest, "format must be json or bytes")
        }
        let open = try library.current()
        let resolution = try open.resolve(try open.pathReading(readings))
        if let failure = resolution.apiError { throw failure }
        let path = resolution.resolved!
        let stored = try library.read(in: open) { open, db in try ServeQueries.frames(db, rootId: open.rootId, path: path) }
        guard let stored else {
            throw APIError(.notFound, "no visualiser frames for \(path): not analysed yet", [("relative_path", .string(path))])
        }
        let bytes = [UInt8](stored.data)
        var response = format == "bytes"
            ? JSONBody.bytes(bytes, contentType: "application/octet-stream")
            : JSONBody.bytes(FramesJSON.encode(bands: stored.bands, data: bytes))
        response.headers[values: HTTPField.Name("X-Frames-Fps")!] = [String(stored.fps)]
        response.headers[values: HTTPField.Name("X-Frames-Bands")!] = [String(stored.bands)]
        response.headers[values: HTTPField.Name("X-Frames-Count")!] = [String(stored.count)]
        return response
    }
}
