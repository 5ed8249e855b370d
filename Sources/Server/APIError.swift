import Hummingbird
import Pipeline

/// An error a client caused or must wait out, answered as JSON: `{"error": message, "status": code, ...}`
/// with whatever else helps (the paths tried, the limit exceeded). Nothing internal is ever in it.
struct APIError: HTTPResponseError {
    var status: HTTPResponse.Status
    var message: String
    var extra: [(String, JSONValue)] = []
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, _ extra: [(String, JSONValue)] = []) {
        self.status = status
        self.message = message
        self.extra = extra
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONBody.response(body(), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    func body() -> JSONValue {
        .object([("error", .string(message)), ("status", .from(Int(status.code)))] + extra)
    }

    static func unavailable(_ reason: String) -> APIError {
        var error = APIError(.serviceUnavailable, reason)
        error.headers[.retryAfter] = "5"
        return error
    }
}

/// JSON bodies for responses.
enum JSONBody {
    static func response(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        bytes(Array(value.serialized().utf8), status: status)
    }

    static func bytes(_ bytes: [UInt8], status: HTTPResponse.Status = .ok,
                      contentType: String = "application/json; charset=utf-8") -> Response {
        Response(status: status, headers: [.contentType: contentType],
                 body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
