@testable import Analysis
import Foundation
import TestSupport
import XCTest

/// The feature vector: named, stored compactly, and a description of the sound rather than of its level,
/// sample rate or tempo.
final class FeatureVectorTests: XCTestCase {
    private func vector(_ samples: [Float], rate: Int = 44100) throws -> [Float] {
        try XCTUnwrap(analyse(samples, sampleRate: rate, channels: 2, options: only("features")).features).values
    }

    /// Distance over the standardised timbre dimensions (MFCCs, spectral shape, contrast, onsets).
    private func distance(_ a: [Float], _ b: [Float]) -> Double {
        let timbre = FeatureVector.names.indices.filter { !FeatureVector.names[$0].hasPrefix("chroma") }
        return timbre.map { i in Double(a[i] - b[i]) * Double(a[i] - b[i]) }.reduce(0, +).squareRoot()
    }

    private func scaled(_ s: [Float], _ gain: Float) -> [Float] { s.map { $0 * gain } }

    func testNamesMatchTheValuesAndTheStoredFormRoundTrips() throws {
        let v = try vector(Synth.chords(Synth.cadence(tonic: 0, minor: false), timbre: .organ), rate: 22050)
        XCTAssertEqual(v.count, FeatureVector.names.count)
        XCTAssertEqual(Set(FeatureVector.names).count, FeatureVector.names.count, "names are unique")
        XCTAssertTrue(v.allSatisfy(\.isFinite))
        let stored = FeatureVector(values: v).encoded
        XCTAssertEqual(stored.count, 4 * v.count)
        XCTAssertEqual(FeatureVector(encoded: stored)?.values, v)
        XCTAssertNil(FeatureVector(encoded: Data([1, 2, 3])))
    }

    func testLevelAndSampleRateMoveTheVectorLessThanAnotherSoundDoes() throws {
        let organ = Synth.chords(Synth.cadence(tonic: 0, minor: false), timbre: .organ, rate: 44100)
        let a = try vector(organ)
        let quieter = try vector(scaled(organ, 0.25))
        let at48k = try vector(Synth.chords(Synth.cadence(tonic: 0, minor: false), timbre: .organ, rate: 48000), rate: 48000)
        let drums = try vector(TempoTests.drums(bpm: 120, seconds: 20))
        let plucked = try vector(Synth.chords(Synth.cadence(tonic: 0, minor: false), timbre: .plucked, rate: 44100))
        let other = min(distance(a, drums), distance(a, plucked))
        XCTAssertLessThan(distance(a, quieter), other / 5, "12 dB quieter")
        XCTAssertLessThan(distance(a, at48k), other / 5, "48 kHz")
    }

    func testTimbreBarelyMovesUnderATenPercentStretch() throws {
        let slow = try vector(TempoTests.drums(bpm: 110, seconds: 20))
        let fast = try vector(TempoTests.drums(bpm: 121, seconds: 20))
        let chords = try vector(TempoTests.chords(bpm: 110, seconds: 20))
        XCTAssertLessThan(distance(slow, fast), distance(slow, chords) / 4)
        // The onset rate follows the tempo: that is rhythm, not timbre.
        let rate = try XCTUnwrap(FeatureVector.names.firstIndex(of: "onset_rate"))
        XCTAssertGreaterThan(fast[rate], slow[rate])
    }

    func testPercussionHasMoreOnsetsAndFlatterSpectraThanSustainedChords() throws {
        let drums = FeatureVector(values: try vector(TempoTests.drums(bpm: 120, seconds: 20)))
        let chords = FeatureVector(values: try vector(TempoTests.chords(bpm: 60, seconds: 20)))
        XCTAssertGreaterThan(try XCTUnwrap(drums["onset_rate"]), try XCTUnwrap(chords["onset_rate"]))
        XCTAssertGreaterThan(try XCTUnwrap(drums["flatness_log_mean"]), try XCTUnwrap(chords["flatness_log_mean"]))
        XCTAssertGreaterThan(try XCTUnwrap(drums["centroid_oct_mean"]), try XCTUnwrap(chords["centroid_oct_mean"]))
    }

    func testSilenceGivesNoVector() {
        XCTAssertNil(analyse(Synth.silence(seconds: 5), sampleRate: 44100, channels: 2, options: only("features")).features)
    }
}
