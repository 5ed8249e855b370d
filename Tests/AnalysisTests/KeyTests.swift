@testable import Analysis
import Foundation
import TestSupport
import XCTest

/// Tonal material in known keys (cadences and scales in several timbres and tunings), and input without a key.
final class KeyTests: XCTestCase {
    private func key(_ samples: [Float], rate: Int = 22050) -> (key: MusicalKey, strength: Double)? {
        analyse(samples, sampleRate: rate, channels: 2, options: only("features")).key
    }

    func testCadencesInEveryTimbreAndTuning() {
        var wrong: [String] = []
        var cases = 0
        let keys = [(0, false), (9, true), (7, false), (4, true), (3, false), (6, true), (10, false), (1, true)]
        for (n, (tonic, minor)) in keys.enumerated() {
            for (t, timbre) in Synth.Timbre.allCases.enumerated() {
                // Every key in every timbre; the tuning (−30, 0, +30 cents) rotates through them.
                do {
                    let cents = [-30.0, 0, 30][(n + t) % 3]
                    cases += 1
                    let expected = MusicalKey(tonic: tonic, minor: minor)
                    let found = key(Synth.chords(Synth.cadence(tonic: tonic, minor: minor), timbre: timbre, cents: cents))
                    if found?.key != expected {
                        wrong.append("\(expected.name) \(timbre) \(cents) cents → \(found?.key.name ?? "none")")
                    }
                }
            }
        }
        XCTAssertEqual(wrong, [], "\(wrong.count) of \(cases) wrong")
    }

    func testOtherSampleRatesGiveTheSameKey() {
        for rate in [8000, 44100, 48000] {
            let found = key(Synth.chords(Synth.cadence(tonic: 2, minor: false), timbre: .organ, rate: rate), rate: rate)
            XCTAssertEqual(found?.key, MusicalKey(tonic: 2, minor: false), "\(rate) Hz")
        }
    }

    func testStrengthIsHigherForClearTonalityThanForAChromaticCluster() throws {
        let clear = try XCTUnwrap(key(Synth.chords(Synth.cadence(tonic: 0, minor: false), timbre: .organ)))
        // All twelve pitch classes in turn: no key stands out.
        let chromatic = key(Synth.chords((60..<72).map { [$0] }, timbre: .organ))
        XCTAssertGreaterThan(clear.strength, 0.7)
        XCTAssertLessThan(chromatic?.strength ?? 0, clear.strength - 0.3)
    }

    func testNoiseSilenceAndClicksHaveNoKey() {
        XCTAssertNil(key(Synth.noise(seconds: 10, rmsDBFS: -20, sampleRate: 22050)))
        XCTAssertNil(key(Synth.silence(seconds: 10, sampleRate: 22050)))
        XCTAssertNil(key(Synth.clicks(bpm: 120, seconds: 10, sampleRate: 22050)))
    }

    /// One note is not a key: a test tone at any pitch and rate has none, while three notes of a triad do.
    func testALoneNoteHasNoKeyButATriadHasOne() throws {
        for (frequency, rate) in [(440.0, 22050), (100, 44100), (1000, 48000), (261.6, 96000)] {
            XCTAssertNil(key(Synth.sine(frequency: frequency, seconds: 10, sampleRate: rate), rate: rate),
                         "\(frequency) Hz at \(rate) Hz")
        }
        let triad = zip(zip(Synth.sine(frequency: 261.6, seconds: 10, sampleRate: 22050, amplitude: 0.2),
                            Synth.sine(frequency: 329.6, seconds: 10, sampleRate: 22050, amplitude: 0.2)),
                        Synth.sine(frequency: 392, seconds: 10, sampleRate: 22050, amplitude: 0.2)).map { $0.0 + $0.1 + $1 }
        XCTAssertEqual(try XCTUnwrap(key(triad)).key, MusicalKey(tonic: 0, minor: false))
        // Nor a note with its harmonics (it had read as the minor key a fifth below: an A as D minor), while a
        // drone under a melody keeps the key.
        for note in [33, 45, 48, 52, 55] {
            for timbre in [Synth.Timbre.organ, .plucked] {
                let found = key(Synth.chords([[note]], beat: 10, timbre: timbre))
                XCTAssertNil(found, "MIDI note \(note), \(timbre): \(found?.key.name ?? "")")
            }
        }
        let melody = [69, 71, 73, 74, 76, 78, 80, 81, 76, 73, 69, 74, 73, 71, 69].map { [45, $0] }
        XCTAssertEqual(key(Synth.chords(melody, timbre: .organ))?.key, MusicalKey(tonic: 9, minor: false))
    }

    func testNamesAndTagValuesRoundTrip() {
        for tonic in 0..<12 {
            for minor in [false, true] {
                let k = MusicalKey(tonic: tonic, minor: minor)
                XCTAssertEqual(MusicalKey(name: k.name), k)
                XCTAssertEqual(MusicalKey(name: k.tagValue), k)
                XCTAssertLessThanOrEqual(k.tagValue.count, 3, "ID3 TKEY holds at most three characters")
            }
        }
        XCTAssertEqual(MusicalKey(tonic: 9, minor: true).tagValue, "Am")
        XCTAssertEqual(MusicalKey(tonic: 3, minor: true).tagValue, "Ebm")
        XCTAssertEqual(MusicalKey(tonic: 1, minor: false).name, "C# major")
        XCTAssertNil(MusicalKey(name: "H minor"))
    }
}
