import Foundation
@testable import Navidrome
@testable import Pipeline
import TestSupport
import XCTest

/// Subsonic credentials stay secret: token authentication with a fresh salt per request, passwords from a
/// file or the environment, no password in messages, warnings for files others can read.
final class SubsonicCredentialsTests: XCTestCase {
    static let ok = #"{"subsonic-response":{"status":"ok","version":"1.16.1"}}"#

    func testMD5MatchesRFC1321() {
        XCTAssertEqual(MD5.hex(""), "d41d8cd98f00b204e9800998ecf8427e")
        XCTAssertEqual(MD5.hex("abc"), "900150983cd24fb0d6963f7d28e17f72")
        XCTAssertEqual(MD5.hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0")
        XCTAssertEqual(MD5.hex(String(repeating: "1234567890", count: 8)), "57edf4a22be3c955ac49da2e2107b67a")
        // The Subsonic API documentation's own example: md5("sesame" + "c19b2d").
        XCTAssertEqual(MD5.hex("sesamec19b2d"), "26719a1196d2a940705a59634eb18eab")
    }

    func query(_ request: String) -> [String: String] {
        let target = request.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let items = URLComponents(string: target)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    func testEachRequestCarriesATokenWithAFreshSaltAndNeverThePassword() throws {
        let server = try StubHTTPServer(responses: [(200, Self.ok)])
        let client = SubsonicClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, user: "admin",
                                    credentials: .password("sesame"))
        try client.startScan()
        try client.startScan()
        let first = query(server.requests[0]), second = query(server.requests[1])
        XCTAssertNil(first["p"])
        let salt = try XCTUnwrap(first["s"])
        XCTAssertGreaterThanOrEqual(salt.count, 6)
        XCTAssertEqual(first["t"], MD5.hex("sesame" + salt))
        XCTAssertNotEqual(first["s"], second["s"], "a fresh salt per request")
        XCTAssertFalse(server.requests.joined().contains("sesame"))
    }

    func testAPasswordInTheURLIsNeitherSentNorPrinted() throws {
        let client = SubsonicClient(baseURL: URL(string: "http://admin:hunter2@127.0.0.1:9/")!, user: "admin",
                                    credentials: .password("x"))
        XCTAssertFalse(client.baseURL.absoluteString.contains("hunter2"))
        var quick = client
        quick.backoff = []
        XCTAssertThrowsError(try quick.startScan()) { error in
            XCTAssertFalse("\(error)".contains("hunter2"), "\(error)")
        }
        let r = try CLI.run(["navidrome", "rescan", "--url", "http://admin:hunter2@127.0.0.1:9/", "--user", "admin"])
        XCTAssertEqual(r.status, 1)
        XCTAssertFalse((r.stdout + r.stderr).replacingOccurrences(of: "warning: a password in --url", with: "").contains("hunter2"),
                       r.stdout + r.stderr)
    }

    // Attack review, low 9: a password file saved with CRLF made the token from "pw\r\n".
    func testAPasswordFileSavedWithCRLFGivesThePasswordWithoutItsLineEnd() throws {
        let dir = try Synth.temporaryDirectory("subsonic")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/pw"
        try "pw\r\nsecond line\r\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        var warnings: [String] = []
        XCTAssertEqual(try SecretFiles.password(file: file, warn: { warnings.append($0) }), "pw")
        XCTAssertEqual(warnings, [])
        try " pw\t\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        XCTAssertEqual(try SecretFiles.password(file: file, warn: { warnings.append($0) }), " pw\t")
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].contains("begins or ends with a space or tab"), warnings[0])
    }

    func testThePasswordComesFromAFileOrTheEnvironmentAndReadableFilesAreNamed() throws {
        let dir = try Synth.temporaryDirectory("subsonic")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try StubHTTPServer(responses: [(200, Self.ok)])
        let url = "http://127.0.0.1:\(server.port)"
        let file = dir + "/pw"
        try "from-file\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let fromFile = try CLI.run(["navidrome", "rescan", "--url", url, "--user", "admin", "--password-file", file])
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        XCTAssertFalse(fromFile.stderr.contains("warning"), fromFile.stderr)
        let salt = try XCTUnwrap(query(server.requests[0])["s"])
        XCTAssertEqual(query(server.requests[0])["t"], MD5.hex("from-file" + salt))

        let fromEnvironment = try CLI.run(["navidrome", "rescan", "--url", url, "--user", "admin"],
                                          environment: [SecretFiles.passwordVariable: "from-env"])
        XCTAssertEqual(fromEnvironment.status, 0, fromEnvironment.stderr)
        let salt2 = try XCTUnwrap(query(server.requests[1])["s"])
        XCTAssertEqual(query(server.requests[1])["t"], MD5.hex("from-env" + salt2))

        let onCommandLine = try CLI.run(["navidrome", "rescan", "--url", url, "--user", "admin", "--password", "visible"])
        XCTAssertEqual(onCommandLine.status, 0)
        XCTAssertTrue(onCommandLine.stderr.contains("visible to other users"), onCommandLine.stderr)

        chmod(file, 0o644)
        let readable = try CLI.run(["navidrome", "rescan", "--url", url, "--user", "admin", "--password-file", file])
        XCTAssertTrue(readable.stderr.contains("readable by every user"), readable.stderr)

        let pipeline = dir + "/tagfix.toml"
        try """
            [pipeline]
            stages = ["scan"]
            [navidrome]
            url = "\(url)"
            user = "admin"
            password = "in-the-file"
            """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        chmod(pipeline, 0o644)
        try FileManager.default.createDirectory(atPath: dir + "/music", withIntermediateDirectories: true)
        let run = try CLI.run(["--db", dir + "/db", "--library", dir + "/music", "run", pipeline])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("\(pipeline) holds a password"), run.stderr)
        XCTAssertFalse((run.stdout + run.stderr).contains("in-the-file"))
    }

    func testAFailedRescanInsideARunIsAFailure() throws {
        let dir = try Synth.temporaryDirectory("rescanfail")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let library = dir + "/music"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/a.flac", format: .flac16)
        try "path,key,value\na.flac,TITLE,Fixed\n".write(toFile: dir + "/edits.csv", atomically: true, encoding: .utf8)
        let server = try StubHTTPServer(responses: [(200, #"{"subsonic-response":{"status":"failed","error":{"code":40,"message":"Wrong username or password"}}}"#)])
        let pipeline = dir + "/tagfix.toml"
        try """
            [pipeline]
            stages = ["tagfix", "scan", "tags"]
            [tagfix]
            edits = "\(dir)/edits.csv"
            [navidrome]
            url = "http://127.0.0.1:\(server.port)"
            user = "admin"
            """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        let r = try CLI.run(["--db", dir + "/db", "--library", library, "run", pipeline],
                            environment: [SecretFiles.passwordVariable: "wrong"])
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("rescan failed"), r.stdout)
    }
}
