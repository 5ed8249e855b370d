import Foundation

/// How `spindle serve` listens and what it accepts. The defaults are the safe ones: loopback only, and
/// limits well above what a player sends but far below what would let one request cost the server much.
public struct ServeOptions: Sendable {
    public var host = "127.0.0.1"
    public var port = 8000
    /// A file whose first line is the bearer token every route but `/health` then requires.
    public var tokenFile: String?
    /// Most paths one bulk request may ask for.
    public var maxPaths = 1000
    /// Largest request body (a bulk POST), in bytes.
    public var maxBodyBytes = 1 << 20
    /// Longest request target (path and query), in bytes.
    public var maxTargetBytes = 16 << 10
    /// Longest request head (request line and headers) the HTTP parser holds, in bytes: above `maxTargetBytes`,
    /// so that a target a little too long gets the server's JSON 414, and low enough that `maxConnections`
    /// heads held open cost little (256 × 128 KiB, with the parser's buffers, stays near 100 MB).
    public var maxHeadBytes = 128 << 10
    /// Most connections open at once; more are closed as they open.
    public var maxConnections = 256
    /// Most neighbours `/similar` and tracks `/mix` return.
    public var maxTracks = 200

    public init() {}

    /// Whether the address it listens on lets other machines in (all interfaces, a LAN address): loopback does not.
    public var reachableFromOtherMachines: Bool {
        !(host == "localhost" || host == "::1" || host.hasPrefix("127."))
    }

    /// Parses `HOST:PORT`, `[IPv6]:PORT`, `:PORT` (loopback) or `PORT` alone.
    public mutating func setListen(_ text: String) throws {
        var host = self.host
        var portText = text
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw ServeOptionsError("--listen \(text): missing ]") }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = String(text[text.index(after: close)...])
            guard portText.hasPrefix(":") else { throw ServeOptionsError("--listen \(text): expected [ADDRESS]:PORT") }
            portText.removeFirst()
        } else if let colon = text.lastIndex(of: ":") {
            let named = String(text[..<colon])
            if !named.isEmpty { host = named }
            portText = String(text[text.index(after: colon)...])
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw ServeOptionsError("--listen \(text): the port must be a number from 0 to 65535")
        }
        self.host = host
        self.port = port
    }
}

public struct ServeOptionsError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
