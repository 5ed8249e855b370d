import Foundation
import Hummingbird
import Logging

/// Outermost: times every request and counts it by route and final status.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        metrics.record(route: context.endpointPath ?? "unmatched", status: Int(response.status.code), seconds: seconds)
        return response
    }
}

/// Every failure becomes a JSON body with the right status: the server's own errors as they are, the
/// framework's (no such route, body too large) with their status, anything else a 500 that says only
/// that, with the details in the log and never in the response.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let message = error.status == .notFound ? "no such endpoint: \(request.uri.path)" : (error.body ?? error.status.reasonPhrase)
            return try APIError(error.status, message).response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            let message = error.status == .contentTooLarge ? "request body too large" : error.status.reasonPhrase
            return try APIError(error.status, message).response(from: request, context: context)
        } catch {
            context.logger.error("\(request.method) \(request.uri.path): \(error)")
            return try APIError(.internalServerError, "internal error").response(from: request, context: context)
        }
    }
}

/// The methods each route takes: HEAD wherever GET is (the GET handler's answer without its body: a monitor's
/// `curl -I /health` got 404; `SpindleServer.router` adds the HEAD routes), and 405 with `Allow` for any other
/// method on a known path (it was 404, as if the route did not exist).
struct MethodMiddleware<Context: RequestContext>: RouterMiddleware {
    let methods: [String: Set<HTTPRequest.Method>]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let allowed = methods[request.uri.path] else { return try await next(request, context) }
        if request.method == .head, allowed.contains(.get) {
            let response = try await next(request, context)
            return Response(status: response.status, headers: response.headers, body: ResponseBody())
        }
        guard allowed.contains(request.method) else {
            let names = (allowed.contains(.get) ? allowed.union([.head]) : allowed).map(\.rawValue).sorted()
            var error = APIError(.methodNotAllowed, "\(request.method.rawValue) is not served at \(request.uri.path); it takes "
                                 + names.joined(separator: ", "))
            error.headers[.allow] = names.joined(separator: ", ")
            throw error
        }
        return try await next(request, context)
    }
}

/// Refuses request targets longer than the limit before any route parses them.
struct TargetLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let length = request.uri.string.utf8.count
        guard length <= maxBytes else {
            throw APIError(.uriTooLong, "request target of \(length) bytes is longer than the limit of \(maxBytes)",
                           [("limit", .from(maxBytes))])
        }
        return try await next(request, context)
    }
}

/// With a token configured, every route but `/health` needs `Authorization: Bearer <token>`.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]
    let open: Set<String> = ["/health"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if open.contains(request.uri.path) { return try await next(request, context) }
        guard let header = request.headers[.authorization] else {
            throw challenge("this server needs Authorization: Bearer <token>")
        }
        let prefix = "Bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix.lowercased(),
              Self.equal(Array(header.dropFirst(prefix.count).utf8), token) else {
            throw challenge("wrong token")
        }
        return try await next(request, context)
    }

    private func challenge(_ message: String) -> APIError {
        var error = APIError(.unauthorized, message)
        error.headers[.wwwAuthenticate] = "Bearer"
        return error
    }

    /// Compares in time that depends on the length only, not on where the first difference is.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
