import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Asks a Subsonic server (Navidrome) to rescan its library: `startScan`, retried on transient failures
/// (connection errors, HTTP 5xx and 429) after 1 s, 2 s and 4 s.
///
/// The password never travels: each request carries `t = md5(password + salt)` with a fresh random salt
/// (the Subsonic API's token authentication), and no message prints the password or a URL's user info.
public struct SubsonicClient: Sendable {
    public enum Credentials: Sendable {
        case password(String)
        case token(token: String, salt: String)
    }

    /// The server's address without any `user:password@` part.
    public private(set) var baseURL: URL
    public var user: String
    public var credentials: Credentials
    public var backoff: [Double] = [1, 2, 4]
    /// How a retry waits its `backoff` seconds; a test replaces it to see the waits without spending them.
    public var pause: @Sendable (Double) -> Void = { Thread.sleep(forTimeInterval: $0) }

    public init(baseURL: URL, user: String, credentials: Credentials) {
        self.baseURL = Self.withoutUserInfo(baseURL)
        self.user = user
        self.credentials = credentials
    }

    /// The URL with any user info removed, for requests and for every message that names the server.
    public static func withoutUserInfo(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              components.user != nil || components.password != nil else { return url }
        components.user = nil
        components.password = nil
        return components.url ?? url
    }

    /// A fresh salt per request: 16 hex digits from the system's random source.
    static func salt() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = String(generator.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - value.count) + value
    }

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
        public let transient: Bool
    }

    func url(_ endpoint: String) -> URL {
        var components = URLComponents(url: baseURL.appendingPathComponent("rest/\(endpoint).view"),
                                       resolvingAgainstBaseURL: false)!
        var items = [URLQueryItem(name: "u", value: user), URLQueryItem(name: "v", value: "1.16.1"),
                     URLQueryItem(name: "c", value: "spindle"), URLQueryItem(name: "f", value: "json")]
        switch credentials {
        case .password(let p):
            let salt = Self.salt()
            items += [URLQueryItem(name: "t", value: MD5.hex(p + salt)), URLQueryItem(name: "s", value: salt)]
        case .token(let t, let s):
            items += [URLQueryItem(name: "t", value: t), URLQueryItem(name: "s", value: s)]
        }
        components.queryItems = items
        return components.url!
    }

    /// Starts a scan; returns the number of attempts it took.
    @discardableResult
    public func startScan(log: (String) -> Void = { _ in }) throws -> Int {
        var attempt = 0
        while true {
            attempt += 1
            do {
                try call("startScan")
                return attempt
            } catch let failure as Failure where failure.transient && attempt <= backoff.count {
                let wait = backoff[attempt - 1]
                log("startScan: \(failure.description); retrying in \(Int(wait)) s")
                pause(wait)
            }
        }
    }

    private func call(_ endpoint: String) throws {
        var request = URLRequest(url: url(endpoint))
        request.timeoutInterval = 30
        let answer = BlockingHTTP.send(request)
        let (data, response, error) = (answer.data, answer.response, answer.error)
        if let error {
            throw Failure(description: "cannot reach \(baseURL.absoluteString): \(error.localizedDescription)", transient: true)
        }
        guard let response else { throw Failure(description: "no HTTP response", transient: true) }
        if response.statusCode >= 500 || response.statusCode == 429 {
            throw Failure(description: "server answered HTTP \(response.statusCode)", transient: true)
        }
        guard response.statusCode == 200 else {
            throw Failure(description: "server answered HTTP \(response.statusCode)", transient: false)
        }
        let code: Int, message: String
        switch SubsonicAnswer(data ?? Data(), contentType: response.value(forHTTPHeaderField: "Content-Type")) {
        case .ok: return
        case .notSubsonic(let description): throw Failure(description: description, transient: false)
        case .failed(let c, let m): (code, message) = (c, m)
        }
        switch code {
        case 50:
            throw Failure(description: "user \(user) may not start a scan: \(message) (Navidrome needs an admin user)",
                          transient: false)
        case 40, 41, 44:
            throw Failure(description: "the server refused the credentials of \(user): \(message)", transient: false)
        default:
            throw Failure(description: "the server answered error \(code): \(message)", transient: false)
        }
    }
}
