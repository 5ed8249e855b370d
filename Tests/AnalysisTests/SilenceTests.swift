@testable import Analysis
import Foundation
import TestSupport
import XCTest

final class SilenceTests: XCTestCase {
    private func silence(_ s: [Float], rate: Int = 44100, channels: Int = 2, threshold: Double = -60) -> SilenceResult {
        var o = only("silence")
        o.silenceThresholdDB = threshold
        return analyse(s, sampleRate: rate, channels: channels, options: o).silence!
    }

    func testDigitalSilencePadsAreFoundToTheSample() throws {
        let music = Synth.sine(frequency: 440, seconds: 3, amplitude: 0.3)
        let s = Synth.concat(Synth.silence(seconds: 1.25), music, Synth.silence(seconds: 2))
        let r = silence(s)
        XCTAssertFalse(r.isSilent)
        XCTAssertEqual(try XCTUnwrap(r.leadSilenceEnd), 1.25, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(r.trailSilenceStart), 4.25, accuracy: 0.001)
    }

    func testNoisePadsUnderTheThresholdCountAsSilence() throws {
        // Uniform noise at -70 dBFS RMS has sample peaks near -65 dBFS: under -60, and its RMS far under.
        let music = Synth.sine(frequency: 1000, seconds: 2, amplitude: 0.2)
        let s = Synth.concat(Synth.silence(seconds: 0.5), Synth.noise(seconds: 1, rmsDBFS: -70, seed: 3), music,
                             Synth.noise(seconds: 2, rmsDBFS: -70, seed: 4), Synth.silence(seconds: 0.5))
        let r = silence(s)
        XCTAssertEqual(try XCTUnwrap(r.leadSilenceEnd), 1.5, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(r.trailSilenceStart), 3.5, accuracy: 0.01)
    }

    func testNoiseWithPeaksAboveTheThresholdButLowRMSStaysSilent() throws {
        // -64 dBFS RMS noise pokes above -60 dBFS peaks now and then; its 5 ms RMS stays under.
        let music = Synth.sine(frequency: 1000, seconds: 1, amplitude: 0.2)
        let s = Synth.concat(Synth.noise(seconds: 2, rmsDBFS: -64, seed: 9), music)
        let r = silence(s)
        XCTAssertEqual(try XCTUnwrap(r.leadSilenceEnd), 2, accuracy: 0.01)
    }

    /// At DSD's decoded rates only the audible band counts: a DSD file decoded at 352.8 kHz keeps its
    /// modulator's hiss above 20 kHz through silence (here a 60 kHz tone at −40 dBFS). Before, the fade-out
    /// never ended and trailing silence started at the end of the file. Music stays sample-exact.
    func testUltrasonicHissIsSilence() throws {
        let rate = 352_800
        let hiss = Synth.sine(frequency: 60000, seconds: 4, sampleRate: rate, amplitude: 0.01)
        var s = Synth.concat(Synth.silence(seconds: 1, sampleRate: rate),
                             Synth.sine(frequency: 440, seconds: 2, sampleRate: rate, amplitude: 0.3),
                             Synth.silence(seconds: 1, sampleRate: rate))
        for i in s.indices { s[i] += hiss[i] }
        let r = silence(s, rate: rate)
        XCTAssertEqual(try XCTUnwrap(r.leadSilenceEnd), 1, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(r.trailSilenceStart), 3, accuracy: 0.001)
        // Three channels: a pair and a lone one (the filter runs channels two at a time).
        var three = [Float](repeating: 0, count: s.count / 2 * 3)
        for i in 0..<(s.count / 2) {
            three[3 * i] = s[2 * i]
            three[3 * i + 1] = s[2 * i + 1]
            three[3 * i + 2] = s[2 * i]
        }
        let r3 = silence(three, rate: rate, channels: 3)
        XCTAssertEqual(try XCTUnwrap(r3.leadSilenceEnd), 1, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(r3.trailSilenceStart), 3, accuracy: 0.001)
        let music = Synth.concat(Synth.silence(seconds: 0.5, sampleRate: 192_000),
                                 Synth.sine(frequency: 440, seconds: 1, sampleRate: 192_000, amplitude: 0.3),
                                 Synth.silence(seconds: 0.5, sampleRate: 192_000))
        let hd = silence(music, rate: 192_000)
        XCTAssertEqual(try XCTUnwrap(hd.leadSilenceEnd), 0.5, accuracy: 0.0001)
        XCTAssertEqual(try XCTUnwrap(hd.trailSilenceStart), 1.5, accuracy: 0.0001)
    }

    /// A DC offset is inaudible, and rips from sound cards and tape carry one: at −40 dBFS (here on one channel
    /// +0.01, on the other −0.004, with dither-level noise) every window had been "sound", so such a file had
    /// no silence at either end (lead 0, trail at the end of the file). A bass note under the threshold's
    /// reach is still sound, and a waveform that opens on a step (a constant 10 ms, as some tracker samples
    /// start) is sound from its first sample, as before.
    func testADCOffsetIsNotSound() throws {
        let music = Synth.concat(Synth.sine(frequency: 45, seconds: 1, amplitude: 0.3),
                                 Synth.sine(frequency: 440, seconds: 2, amplitude: 0.3))
        var s = Synth.concat(Synth.silence(seconds: 1.5), music, Synth.silence(seconds: 2))
        let hiss = Synth.noise(seconds: 6.5, rmsDBFS: -90, seed: 2)
        for i in s.indices { s[i] += (i % 2 == 0 ? 0.01 : -0.004) + hiss[i] }
        let r = silence(s)
        XCTAssertFalse(r.isSilent)
        XCTAssertEqual(try XCTUnwrap(r.leadSilenceEnd), 1.5, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(r.trailSilenceStart), 4.5, accuracy: 0.001)
        // Offset and nothing else: silent.
        var flat = Synth.silence(seconds: 2)
        for i in flat.indices { flat[i] = 0.02 }
        XCTAssertTrue(silence(flat).isSilent)
        // A waveform opening on a step is sound from its first sample.
        var step = Synth.concat(Synth.silence(seconds: 0.01), Synth.sine(frequency: 440, seconds: 1, amplitude: 0.3))
        for i in 0..<882 { step[i] = 0.05 }
        XCTAssertEqual(try XCTUnwrap(silence(step).leadSilenceEnd), 0, accuracy: 0.0001)
    }

    func testAllSilentStreamSaysSo() {
        let r = silence(Synth.noise(seconds: 3, rmsDBFS: -80))
        XCTAssertTrue(r.isSilent)
        XCTAssertNil(r.leadSilenceEnd)
        XCTAssertNil(r.trailSilenceStart)
    }

    func testNoPadsMeansBoundariesAtTheEdges() throws {
        let s = Synth.sine(frequency: 200, seconds: 2, amplitude: 0.5)
        let r = silence(s)
        XCTAssertEqual(try XCTUnwrap(r.leadSilenceEnd), 0, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(r.trailSilenceStart), 2, accuracy: 0.001)
    }

    func testThresholdIsConfigurable() throws {
        // A -50 dBFS passage counts as sound at -60 and as silence at -40.
        let quiet = Synth.sine(frequency: 500, seconds: 1, amplitude: pow(10, -50 / 20))
        let loud = Synth.sine(frequency: 500, seconds: 1, amplitude: 0.5)
        let s = Synth.concat(quiet, loud)
        XCTAssertEqual(try XCTUnwrap(silence(s, threshold: -60).leadSilenceEnd), 0, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(silence(s, threshold: -40).leadSilenceEnd), 1, accuracy: 0.01)
    }

    func testMonoAnd48kAndOddBlockSizes() throws {
        let s = Synth.concat(Synth.silence(seconds: 0.7, sampleRate: 48000, channels: 1),
                             Synth.sine(frequency: 300, seconds: 1, sampleRate: 48000, channels: 1, amplitude: 0.4),
                             Synth.silence(seconds: 0.3, sampleRate: 48000, channels: 1))
        var o = only("silence")
        o.silenceThresholdDB = -60
        let r = analyse(s, sampleRate: 48000, channels: 1, options: o, blockFrames: 777).silence!
        XCTAssertEqual(try XCTUnwrap(r.leadSilenceEnd), 0.7, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(r.trailSilenceStart), 1.7, accuracy: 0.001)
    }
}
