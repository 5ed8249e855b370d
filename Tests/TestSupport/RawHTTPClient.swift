import Foundation

/// A small HTTP/1.1 client over a plain socket: sends exactly the bytes asked for (a request target with
/// NUL, invalid UTF-8 or a megabyte of query is what the server's tests need to send, and what
/// URLSession refuses to), then reads the response until the server closes the connection.
public enum RawHTTPClient {
    public struct Response {
        public var status: Int
        /// Header names lowercased.
        public var headers: [String: String]
        public var body: Data

        public var text: String { String(decoding: body, as: UTF8.self) }
        public func json() -> Any? { try? JSONSerialization.jsonObject(with: body) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// A TCP connection to `port` on 127.0.0.1 whose reads give up after 60 s; the caller closes it.
    public static func connection(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to port \(port): errno \(errno)")
        }
        return fd
    }

    /// `target`: the raw request target (path and query) as bytes.
    public static func request(port: Int, method: String = "GET", target: [UInt8], headers: [String: String] = [:],
                            body: Data = Data()) throws -> Response {
        let fd = try connection(port: port)
        defer { close(fd) }
        var bytes = Array("\(method) ".utf8) + target + Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n".utf8)
        var allHeaders = headers
        if !body.isEmpty || method == "POST" { allHeaders["Content-Length"] = String(body.count) }
        for (name, value) in allHeaders.sorted(by: { $0.key < $1.key }) { bytes += Array("\(name): \(value)\r\n".utf8) }
        bytes += Array("\r\n".utf8) + [UInt8](body)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer and close before reading everything (a body over the limit).
            if n <= 0 { break }
            sent += n
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
        }
        return try parse(received)
    }

    /// A GET of a target given as text (already percent-encoded where needed).
    public static func get(port: Int, _ target: String, headers: [String: String] = [:]) throws -> Response {
        try request(port: port, target: Array(target.utf8), headers: headers)
    }

    static func parse(_ data: Data) throws -> Response {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "no complete response head in \(data.count) bytes")
        }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(head[0])") }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        if let length = headers["content-length"].flatMap(Int.init), body.count > length { body = body.prefix(length) }
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = try dechunked(body) }
        return Response(status: status, headers: headers, body: body)
    }

    /// A chunked body's chunks joined (RFC 9112 §7.1; no trailers expected).
    static func dechunked(_ data: Data) throws -> Data {
        var out = Data(), at = data.startIndex
        while true {
            guard let lineEnd = data[at...].range(of: Data("\r\n".utf8)),
                  let size = Int(String(decoding: data[at..<lineEnd.lowerBound], as: UTF8.self)
                                    .split(separator: ";").first.map(String.init) ?? "", radix: 16),
                  data.distance(from: lineEnd.upperBound, to: data.endIndex) >= size + 2 else {
                throw Failure(description: "a malformed chunked body")
            }
            if size == 0 { return out }
            out.append(data[lineEnd.upperBound..<data.index(lineEnd.upperBound, offsetBy: size)])
            at = data.index(lineEnd.upperBound, offsetBy: size + 2)
        }
    }
}
