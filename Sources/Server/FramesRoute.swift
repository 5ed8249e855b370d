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
        let stored = try library.read(in: open) { open, db in try ServeQueries.storedFrames(db, rootId: open.rootId, path: path) }
        guard let stored, stored.bands > 0 else {
            throw APIError(.notFound, "no visualiser frames for \(path): not analysed yet", [("relative_path", .string(path))])
        }
        // Whole frames from the one at or before `start` to the one that covers its end; clamped to the frames
        // the stored bytes hold, so no request reads past them.
        let total = stored.bytes / stored.bands
        let first = Int(min(Double(total), (start * stored.fps).rounded(.down)))
        let end = length.map { min(total, first + Int(min(Double(total), ($0 * stored.fps).rounded(.up)))) } ?? total
        var headers: HTTPFields = [.contentType: format == "bytes" ? "application/octet-stream" : "application/json; charset=utf-8"]
        headers[values: HTTPField.Name("X-Frames-Fps")!] = [String(stored.fps)]
        headers[values: HTTPField.Name("X-Frames-Bands")!] = [String(stored.bands)]
        headers[values: HTTPField.Name("X-Frames-Count")!] = [String(end - first)]
        headers[values: HTTPField.Name("X-Frames-Start")!] = [String(first)]
        let bytes = first * stored.bands..<end * stored.bands
        let body = Self.body(bytes, of: stored, json: format == "json", open: open, library: library)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The frames `bytes` of `stored`, read and written a piece at a time, each piece in a read of its own.
    /// Should the file be analysed again meanwhile with frames of another shape, or forgotten, the connection
    /// is dropped: the head announced the old fps, band count and length, and a body that ended cleanly or
    /// went on with the new frames would pass for them.
    private static func body(_ bytes: Range<Int>, of stored: ServeQueries.StoredFrames, json: Bool, open: ServedLibrary.Open,
                             library: ServedLibrary) -> ResponseBody {
        // A long recording's frames (100 MB for a 30-hour audiobook, seven times that as JSON) are read and
        // sent a piece at a time instead of held whole, several times over.
        let step = FramesJSON.Pieces.bytes(bands: stored.bands)
        return ResponseBody { writer in
            var pieces = FramesJSON.Pieces()
            var offset = bytes.lowerBound
            while offset < bytes.upperBound {
                let count = min(step, bytes.upperBound - offset)
                guard let piece = try library.read(in: open, { _, db in
                    try ServeQueries.framesPiece(db, of: stored, offset: offset, count: count)
                }) else { throw FramesChanged() }
                let text = json ? piece.withUnsafeBufferPointer { pieces.piece(bands: stored.bands, data: $0) } : piece
                try await writer.write(ByteBuffer(bytes: text))
                offset += count
            }
            if json { try await writer.write(ByteBuffer(bytes: pieces.end())) }
            try await writer.finish(nil)
        }
    }
}

/// The frames a response was sending changed shape or went away under it.
struct FramesChanged: Error, CustomStringConvertible {
    var description: String { "the frames changed while they were sent; the connection is dropped" }
}
