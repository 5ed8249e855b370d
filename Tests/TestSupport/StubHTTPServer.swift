import Foundation

/// A one-thread HTTP server on 127.0.0.1 that answers requests with the responses given, in order (the last
/// one repeats), and records the request lines. For testing clients without a network.
public final class StubHTTPServer: @unchecked Sendable {
    public let port: UInt16
    private let socketFD: Int32
    private let lock = NSLock()
    private var responses: [(status: Int, body: String)]
    private var _requests: [String] = []
    private var _heads: [String] = []

    public var requests: [String] { lock.lock(); defer { lock.unlock() }; return _requests }
    /// Each request's line and headers, as sent.
    public var heads: [String] { lock.lock(); defer { lock.unlock() }; return _heads }

    public init(responses: [(status: Int, body: String)]) throws {
        self.responses = responses
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw NSError(domain: "stub", code: 1) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        socketFD = fd
        Thread { [self] in serve() }.start()
    }

    deinit { close(socketFD) }

    private func serve() {
        var served = 0
        while true {
            let client = accept(socketFD, nil, nil)
            if client < 0 { return }
            var buffer = [UInt8](repeating: 0, count: 8192)
            let n = read(client, &buffer, buffer.count)
            let request = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
            lock.lock()
            _requests.append(request.components(separatedBy: "\r\n").first ?? "")
            _heads.append(request.components(separatedBy: "\r\n\r\n").first ?? "")
            let response = responses[min(served, responses.count - 1)]
            lock.unlock()
            served += 1
            let reason = response.status == 200 ? "OK" : "Error"
            let text = "HTTP/1.1 \(response.status) \(reason)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(response.body.utf8.count)\r\nConnection: close\r\n\r\n\(response.body)"
            _ = text.withCString { write(client, $0, strlen($0)) }
            close(client)
        }
    }
}
