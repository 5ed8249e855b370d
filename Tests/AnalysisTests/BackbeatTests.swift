@testable import Analysis
import TestSupport
import XCTest

/// The backbeat score on hand-made kick and snare envelopes, the autocorrelation it sits beside, and the
/// onset envelope's two drum bands on synthesized drums and notes.
final class BackbeatTests: XCTestCase {
    private let fps = 86.13

    /// Pulses every `spacing` frames from `phase`, with a little noise everywhere (music is never silent).
    private func pulses(_ frames: Int, every spacing: Double, from phase: Double, rng: inout SplitMix) -> [Float] {
        var e = (0..<frames).map { _ in Float(rng.unit()) * 0.05 }
        var t = phase
        while Int(t) < frames { e[Int(t)] += 1; t += spacing }
        return e
    }

    func testKickAndSnareTakingTurnsScoreAtTheirBeatAndNotAtItsEighths() throws {
        var rng = SplitMix(seed: 1)
        let beat = 60 * fps / 84
        // Kick on beats 1 and 3, snare on 2 and 4.
        let kick = pulses(4000, every: 2 * beat, from: 10, rng: &rng)
        let snare = pulses(4000, every: 2 * beat, from: 10 + beat, rng: &rng)
        let bands = try XCTUnwrap(Backbeat.Bands(kick: kick, snare: snare, framesPerSecond: fps))
        XCTAssertGreaterThan(bands.score(period: beat), 0.4)
        XCTAssertLessThan(bands.score(period: beat / 2), 0)
    }

    /// Hi-hats on every eighth sound in the snare band too; six times as loud as the snare there, they had held a
    /// plain backbeat's score at 0.13, under the 0.15 at which the slower level is taken (now 0.19).
    func testHatsOnEveryEighthDoNotHideTheBackbeat() throws {
        var rng = SplitMix(seed: 4)
        let beat = 60 * fps / 85
        let kick = pulses(4000, every: 2 * beat, from: 10, rng: &rng)
        let snare = pulses(4000, every: 2 * beat, from: 10 + beat, rng: &rng)
        let hats = pulses(4000, every: beat / 2, from: 10, rng: &rng)
        let band = zip(snare, hats).map { $0 + 6 * $1 }
        let bands = try XCTUnwrap(Backbeat.Bands(kick: kick, snare: band, framesPerSecond: fps))
        XCTAssertGreaterThan(bands.score(period: beat), TempoEstimator.backbeatEvidence)
        XCTAssertGreaterThan(bands.score(period: beat), bands.score(period: beat / 2))
    }

    func testBandsThatDoNotTakeTurnsScoreNearZero() throws {
        var rng = SplitMix(seed: 2)
        let beat = 60 * fps / 100
        // Both bands on every beat (a chord with its bass), and two unrelated noises.
        let together = pulses(4000, every: beat, from: 5, rng: &rng)
        let same = try XCTUnwrap(Backbeat.Bands(kick: together, snare: together, framesPerSecond: fps))
        XCTAssertEqual(same.score(period: beat), 0, accuracy: 0.05)
        let a = (0..<4000).map { _ in Float(rng.unit()) }, b = (0..<4000).map { _ in Float(rng.unit()) }
        let unrelated = try XCTUnwrap(Backbeat.Bands(kick: a, snare: b, framesPerSecond: fps))
        XCTAssertEqual(unrelated.score(period: beat), 0, accuracy: 0.05)
        XCTAssertNil(Backbeat.Bands(kick: [Float](repeating: 0, count: 100), snare: b, framesPerSecond: fps), "no kick at all")
    }

    func testTheLevelRemovedIsTheCentredMeanWithZerosPastTheEnds() {
        let x: [Float] = [3, 3, 3, 3, 3, 3, 3]
        let y = Backbeat.withoutLevel(x, width: 3)
        XCTAssertEqual(Array(y[1...5]), [0, 0, 0, 0, 0])
        XCTAssertEqual(y[0], 1, accuracy: 1e-6)       // (0 + 3 + 3) / 3 removed
        XCTAssertEqual(y[6], 1, accuracy: 1e-6)
    }

    func testAutocorrelationIsTheSumOfLaggedProducts() {
        var rng = SplitMix(seed: 3)
        let x = (0..<1000).map { _ in Float(rng.unit() * 2 - 1) }
        let acf = Autocorrelation.of(x, maxLag: 1005)
        XCTAssertEqual(acf.count, 1006)
        for lag in [0, 1, 37, 500, 999] {
            let plain = (0..<(1000 - lag)).reduce(0.0) { $0 + Double(x[$1]) * Double(x[$1 + lag]) }
            XCTAssertEqual(acf[lag], plain, accuracy: 1e-4 * max(1, abs(plain)))
        }
        XCTAssertEqual(acf[1000], 0)
        XCTAssertEqual(acf[1005], 0)
    }

    func testDetrendingRemovesAConstantLevelFromTheStart() {
        let y = Autocorrelation.detrended([Float](repeating: 5, count: 500), rate: 1 / 129)
        XCTAssertEqual(y.map { abs($0) }.max()!, 0, accuracy: 1e-4)
    }

    /// A noise burst (a snare, a hi-hat) rises in every band, the kick band's too; only a low thump that the
    /// snare band does not share counts as a kick.
    func testTheKickBandCountsLowThumpsAndNotTheLowEndOfNoise() {
        func bands(_ mono: [Float]) -> (kick: Float, snare: Float) {
            let onsets = OnsetEnvelope(sampleRate: 44100)
            var kick: Float = 0, snare: Float = 0
            mono.withUnsafeBufferPointer { onsets.consume($0) { kick += $0.kick; snare += $0.snare } }
            return (kick, snare)
        }
        var rng = SplitMix(seed: 4)
        var noise = [Float](repeating: 0, count: 44100 * 4), thump = noise
        for start in stride(from: 4410, to: noise.count - 8820, by: 22050) {
            for j in 0..<8820 {
                let t = Double(j) / 44100
                noise[start + j] = Float(0.5 * exp(-t * 25) * (rng.unit() * 2 - 1))
                thump[start + j] = Float(0.8 * exp(-t * 18) * sin(2 * Double.pi * (50 + 90 * exp(-t * 30)) * t))
            }
        }
        let n = bands(noise), k = bands(thump)
        XCTAssertGreaterThan(n.snare, 10)
        // Without the correction the noise's kick band gives about a quarter of its snare band.
        XCTAssertLessThan(n.kick, 0.15 * n.snare, "noise bursts read as kicks")
        XCTAssertGreaterThan(k.kick, 4 * k.snare, "a falling sine read as no kick")
    }
}
