import Foundation
import Pipeline
import Server
import TestSupport
import XCTest

/// A small analysed library shared by the server tests (they only read it): clicks padded with silence,
/// two chord tracks (one with a `+` in its name), hiss, a file with a comma in its name, and a symlink that leads out of the root.
struct ServerFixture: Sendable {
    var dir: String
    var library: String
    var db: String

    static let shared = Result { try make() }

    static func make() throws -> ServerFixture {
        let dir = try Synth.temporaryDirectory("ServerTests")
        let fixture = ServerFixture(dir: dir, library: dir + "/music", db: dir + "/spindle.db")
        let write = { (samples: [Float], path: String) in
            let file = fixture.library + "/" + path
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Synth.write(samples, to: file, format: .flac16)
        }
        try write(Synth.concat(Synth.silence(seconds: 1), Synth.clicks(bpm: 120, seconds: 6), Synth.silence(seconds: 1.5)),
                  "Beats/Album/01 Clicks.flac")
        try write(Synth.chords(Synth.cadence(tonic: 0, minor: false), timbre: .organ), "Chords/Album/01 Organ.flac")
        try write(Synth.chords(Synth.cadence(tonic: 7, minor: false), timbre: .plucked), "Chords/Album/02 Plucked + Struck.flac")
        try write(Synth.noise(seconds: 5, rmsDBFS: -24, seed: 3), "Hiss/Album/01 Hiss.flac")
        try write(Synth.noise(seconds: 4, rmsDBFS: -30, seed: 4), "Hiss/Album/02 Quiet, Hiss.flac")
        try write(Synth.noise(seconds: 2, rmsDBFS: -20, seed: 5), "../outside.flac")
        try FileManager.default.createSymbolicLink(atPath: fixture.library + "/Escape.flac", withDestinationPath: dir + "/outside.flac")
        let result = try CLI.run(["--db", fixture.db, "--library", fixture.library, "analyze", "--quiet"])
        guard result.status == 0 else { throw RawHTTPClient.Failure(description: "analyze: \(result.stderr)") }
        return fixture
    }

    static func get() throws -> ServerFixture { try shared.get() }
}

/// A server running in this process on an ephemeral port, for the length of `body`.
func withServer(database: String, library: String, token: String? = nil, maxPaths: Int = 1000, maxConnections: Int = 256,
                _ body: (Int) throws -> Void) throws {
    var options = ServeOptions()
    options.port = 0
    options.maxPaths = maxPaths
    options.maxConnections = maxConnections
    let settings = try Settings.resolve(.init(database: database, library: library))
    let server = SpindleServer(settings: settings, options: options, token: token)
    let listening = DispatchSemaphore(value: 0)
    let port = PortBox()
    let task = Task {
        try await server.runUntilCancelled { bound in
            port.value = bound
            listening.signal()
        }
    }
    guard listening.wait(timeout: .now() + 60) == .success else {
        task.cancel()
        throw RawHTTPClient.Failure(description: "the server did not start listening")
    }
    defer {
        task.cancel()
        let stopped = DispatchSemaphore(value: 0)
        Task { _ = await task.result; stopped.signal() }
        _ = stopped.wait(timeout: .now() + 30)
    }
    try body(port.value)
}

final class PortBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = 0
    var value: Int {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
