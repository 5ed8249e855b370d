import Foundation
import TestSupport
import XCTest

/// Attack review, medium 5: before any route or token check, requests held open with 1.4 MB headers grew the
/// server without bound (300 sockets: 526 MB; 1,000: 1.63 GB). A head is now refused past 128 KiB, and at most
/// `maxConnections` connections are open at once. `scripts/bench-serve-attacks.sh` measures the memory.
final class HeaderFloodTests: XCTestCase {
    func testAHeadOverTheLimitIsRefusedByTheParser() throws {
        let f = try ServerFixture.get()
        try withServer(database: f.db, library: f.library, token: "secret") { port in
            let padded = try RawHTTPClient.request(port: port, target: Array("/health".utf8),
                                                   headers: ["X-Pad": String(repeating: "a", count: 1_400_000)])
            XCTAssertEqual(padded.status, 400)
            XCTAssertEqual(try RawHTTPClient.get(port: port, "/health").status, 200, "still serving")
        }
    }

    func testConnectionsPastTheLimitAreClosedAsTheyOpen() throws {
        let f = try ServerFixture.get()
        try withServer(database: f.db, library: f.library, maxConnections: 8) { port in
            // Each answered once, so the server has taken each of them in before the ninth comes.
            var held = try (0..<8).map { _ in try Socket(port: port) }
            for socket in held { XCTAssertTrue(try socket.answersHealth()) }
            XCTAssertThrowsError(try RawHTTPClient.get(port: port, "/health"), "a ninth is closed unanswered")
            for socket in held { XCTAssertTrue(socket.isOpen, "the first eight stay open") }
            held.removeAll()
            var answered = 0
            for _ in 0..<20 where answered == 0 {
                answered = (try? RawHTTPClient.get(port: port, "/health").status) == 200 ? 1 : 0
                if answered == 0 { usleep(50_000) }
            }
            XCTAssertEqual(answered, 1, "served again once they are closed")
        }
    }
}

/// A TCP connection to the server on loopback that sends nothing.
final class Socket {
    let fd: Int32

    init(port: Int) throws { fd = try RawHTTPClient.connection(port: port) }

    /// Sends a keep-alive GET /health and reads up to the end of the answer's head: whether it was a 200.
    func answersHealth() throws -> Bool {
        let request = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return false }
        var received = Data()
        var byte: UInt8 = 0
        while !received.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
            guard recv(fd, &byte, 1, 0) == 1 else { return false }
            received.append(byte)
        }
        return String(decoding: received, as: UTF8.self).hasPrefix("HTTP/1.1 200")
    }

    /// Not closed by the server: no end of stream waiting to be read.
    var isOpen: Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return n > 0 || (n < 0 && errno == EAGAIN)
    }

    deinit { close(fd) }
}
