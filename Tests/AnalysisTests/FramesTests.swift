@testable import Analysis
import Foundation
import TestSupport
import XCTest

final class FramesTests: XCTestCase {
    private func frames(_ s: [Float], rate: Int = 44100, channels: Int = 2, options: AnalysisOptions = only("frames")) -> VisualFrames {
        analyse(s, sampleRate: rate, channels: channels, options: options).frames!
    }

    func testFrameCountBandsAndRate() {
        let f = frames(Synth.sine(frequency: 1000, seconds: 10, amplitude: 0.5))
        XCTAssertEqual(f.fps, 30)
        XCTAssertEqual(f.bands, 32)
        XCTAssertEqual(f.count, 300)
        XCTAssertEqual(f.data.count, 300 * 32)
    }

    func testSineLightsItsBand() throws {
        let f = frames(Synth.sine(frequency: 1000, seconds: 2, amplitude: 0.5))
        let frame = f.frame(30)
        let loudest = try XCTUnwrap(frame.indices.max { frame[$0] < frame[$1] })
        // Band edges are 30 Hz · (16000/30)^(b/32): 1 kHz falls in band 17.
        let low = 30 * pow(16000.0 / 30, Double(loudest) / 32), high = 30 * pow(16000.0 / 30, Double(loudest + 1) / 32)
        XCTAssertTrue(low <= 1000 && 1000 <= high, "loudest band \(loudest): \(low)–\(high) Hz")
        XCTAssertGreaterThan(frame[loudest], 0.85)
        XCTAssertLessThan(frame[2], 0.3)
    }

    func testSilenceIsZeroAndLevelsStayInRange() {
        let f = frames(Synth.concat(Synth.silence(seconds: 1), Synth.noise(seconds: 1, rmsDBFS: -3)))
        XCTAssertEqual(f.frame(5).max(), 0)
        for i in 0..<f.count { XCTAssertTrue(f.frame(i).allSatisfy { $0 >= 0 && $0 <= 1 }) }
        XCTAssertGreaterThan(f.frame(45).reduce(0, +) / 32, 0.5)
    }

    func testFourMinuteTrackFitsIn256KB() {
        // 24 s give 720 frames of 32 one-byte bands; ten times that, four minutes, stays under 256 KB.
        let f = self.frames(Synth.silence(seconds: 24))
        XCTAssertEqual(f.count, 720)
        XCTAssertEqual(f.data.count, 720 * 32)
        XCTAssertLessThanOrEqual(f.data.count * 10, 256 * 1024)
    }

    // The mono mix serves every analyzer that reads it: its time is its own line in bench, never split
    // between analyzers that may not be running.
    func testMonoMixTimeIsReportedOnItsOwn() {
        let s = Synth.noise(seconds: 3, rmsDBFS: -20)
        let analyzer = TrackAnalyzer(format: StreamFormat(sampleRate: 44100, channels: 2), options: only("tempo"), profile: true)
        s.withUnsafeBufferPointer { analyzer.consume($0, frames: s.count / 2) }
        let timings = analyzer.finish().timings
        XCTAssertEqual(Set(timings.keys), ["tempo", TrackAnalyzer.monoMix])
        let loudnessOnly = TrackAnalyzer(format: StreamFormat(sampleRate: 44100, channels: 2), options: only("loudness"), profile: true)
        s.withUnsafeBufferPointer { loudnessOnly.consume($0, frames: s.count / 2) }
        XCTAssertEqual(Set(loudnessOnly.finish().timings.keys), ["loudness"], "no mono mix when no analyzer reads it")
    }

    func testConfigurableFpsAndBands() {
        var o = only("frames")
        o.framesPerSecond = 60
        o.frameBands = 16
        let f = frames(Synth.sine(frequency: 440, seconds: 3, amplitude: 0.5), options: o)
        XCTAssertEqual(f.count, 180)
        XCTAssertEqual(f.bands, 16)
    }

    func testLowSampleRateWindowLongerThanHop() {
        // 8 kHz: the 1024-sample window is longer than a 1/30 s hop; frames overlap and all are produced.
        let f = frames(Synth.sine(frequency: 500, seconds: 2, sampleRate: 8000, channels: 1, amplitude: 0.5), rate: 8000, channels: 1)
        XCTAssertEqual(f.count, 60)
    }

    /// Given a sink, the frames go there a piece at a time as they are made, the same bytes, and the result
    /// keeps only their shape and profile: a 10-hour file at 120 fps × 256 bands had its worker hold 1.1 GB.
    func testFramesGivenASinkGoThereAsTheyAreMadeAndAreTheSame() throws {
        final class Collecting: FramesSink {
            var data = Data()
            var writes = 0
            func write(_ bytes: UnsafeRawBufferPointer) { data.append(contentsOf: bytes); writes += 1 }
        }
        var options = only("frames")
        options.framesPerSecond = 120
        options.frameBands = 256
        // 30,720 bytes a second: 80 s make some 2.4 MiB, over two pieces of 1 MiB.
        let signal = Synth.noise(seconds: 80, rmsDBFS: -12)
        let whole = try XCTUnwrap(analyse(signal, sampleRate: 44100, channels: 2, options: options).frames)
        let sink = Collecting()
        let sunk = analyse(signal, sampleRate: 44100, channels: 2, options: options, framesSink: sink)
        XCTAssertNil(sunk.values["vis_frames"], "the frames are not in the result too")
        XCTAssertEqual(sunk.values["frames_count"]?.int, whole.count)
        XCTAssertEqual(sink.data, whole.data)
        XCTAssertGreaterThanOrEqual(sink.writes, 3)
        XCTAssertEqual(sunk.values["spectrum_mid"]?.double, whole.profile[1])
        XCTAssertEqual(sunk.values["spectrum_high"]?.double, whole.profile[2])
    }
}
