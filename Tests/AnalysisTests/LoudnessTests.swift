@testable import Analysis
import Foundation
import XCTest

/// EBU Tech 3341 (integrated loudness, true peak) and Tech 3342 (loudness range) cases, synthesized from
/// their published definitions: 1 kHz tones whose levels are peak dBFS, at 48 kHz.
final class LoudnessTests: XCTestCase {
    private func loudness(_ s: [Float], rate: Int = 48000, channels: Int = 2, speakers: [UInt64]? = nil) -> LoudnessResult {
        analyse(s, sampleRate: rate, channels: channels, speakers: speakers, options: only("loudness")).loudness!
    }

    func testTech3341Case1And2SteadyTones() throws {
        XCTAssertEqual(try XCTUnwrap(loudness(toneSequence([(-23, 20)])).integratedLUFS), -23, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(loudness(toneSequence([(-33, 20)])).integratedLUFS), -33, accuracy: 0.1)
    }

    func testTech3341Case3And4RelativeAndAbsoluteGates() throws {
        let case3 = toneSequence([(-36, 10), (-23, 60), (-36, 10)])
        XCTAssertEqual(try XCTUnwrap(loudness(case3).integratedLUFS), -23, accuracy: 0.1)
        let case4 = toneSequence([(-72, 10), (-36, 10), (-23, 60), (-36, 10), (-72, 10)])
        XCTAssertEqual(try XCTUnwrap(loudness(case4).integratedLUFS), -23, accuracy: 0.1)
    }

    func testTech3341Case5() throws {
        let case5 = toneSequence([(-26, 20), (-20, 20.1), (-26, 20)])
        XCTAssertEqual(try XCTUnwrap(loudness(case5).integratedLUFS), -23, accuracy: 0.1)
    }

    func testTech3341Case6FiveChannelWeights() throws {
        // L, R at -28 dBFS, C at -24, Ls, Rs at -30 (file order L R C Ls Rs): surrounds weigh +1.5 dB.
        let levels: [Double] = [-28, -28, -24, -30, -30]
        let frames = 20 * 48000
        var s = [Float](repeating: 0, count: frames * 5)
        let w = 2 * Double.pi * 1000 / 48000
        for i in 0..<frames {
            let v = sin(w * Double(i))
            for c in 0..<5 { s[i * 5 + c] = Float(pow(10, levels[c] / 20) * v) }
        }
        XCTAssertEqual(try XCTUnwrap(loudness(s, channels: 5).integratedLUFS), -23, accuracy: 0.1)
    }

    func testLFEIsNotCountedIn51() throws {
        // A loud tone in the LFE channel alone (index 3 of 5.1) adds nothing.
        let front = tone(frequency: 1000, peakDB: -23, seconds: 5, sampleRate: 48000, channels: 6, active: [0, 1])
        var withLFE = front
        let lfe = tone(frequency: 60, peakDB: -3, seconds: 5, sampleRate: 48000, channels: 6, active: [3])
        for i in withLFE.indices { withLFE[i] += lfe[i] }
        let a = try XCTUnwrap(loudness(front, channels: 6).integratedLUFS)
        let b = try XCTUnwrap(loudness(withLFE, channels: 6).integratedLUFS)
        XCTAssertEqual(a, b, accuracy: 0.001)
    }

    // The weights followed the channel count alone: a quad file's rears counted as fronts (1.5 dB low), a 2.1
    // or 3.1 file's LFE as a front, a 4.0 file's back centre as a front, a 7.1 (wide) file's front centres as
    // surrounds. ffmpeg's ebur128 weighs by the layout the file states, as here.
    func testChannelsAreWeighedByTheLayoutTheFileStates() throws {
        let (fl, fr, fc, lfe, bl, br, bc) = (SpeakerBits.frontLeft, SpeakerBits.frontRight, SpeakerBits.frontCenter,
                                             SpeakerBits.lowFrequency, SpeakerBits.backLeft, SpeakerBits.backRight,
                                             SpeakerBits.backCenter)
        let surroundGain = 10 * log10(1.41)
        /// Loudness of a −23 dBFS 1 kHz tone on `channel` alone, relative to the same tone on a front.
        func relative(_ channels: Int, _ speakers: [UInt64]?, channel: Int) throws -> Double? {
            let front = tone(frequency: 1000, peakDB: -23, seconds: 3, sampleRate: 48000, channels: channels, active: [0])
            let alone = tone(frequency: 1000, peakDB: -23, seconds: 3, sampleRate: 48000, channels: channels, active: [channel])
            let reference = try XCTUnwrap(loudness(front, channels: channels, speakers: speakers).integratedLUFS)
            return loudness(alone, channels: channels, speakers: speakers).integratedLUFS.map { $0 - reference }
        }
        // Four channels with no layout stated are quadraphonic, as in FLAC, Vorbis and Opus.
        XCTAssertEqual(try XCTUnwrap(relative(4, nil, channel: 1)), 0, accuracy: 0.01)
        for rear in [2, 3] { XCTAssertEqual(try XCTUnwrap(relative(4, nil, channel: rear)), surroundGain, accuracy: 0.01) }
        XCTAssertNil(try relative(3, [fl, fr, lfe], channel: 2), "2.1: the LFE is not counted")
        XCTAssertNil(try relative(4, [fl, fr, fc, lfe], channel: 3), "3.1: the LFE is not counted")
        XCTAssertEqual(try XCTUnwrap(relative(4, [fl, fr, fc, lfe], channel: 2)), 0, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(relative(4, [fl, fr, fc, bc], channel: 3)), surroundGain, accuracy: 0.01)
        let wide: [UInt64] = [fl, fr, fc, lfe, bl, br, 1 << 6, 1 << 7]   // 7.1 (wide): front left and right of centre
        for channel in [6, 7] { XCTAssertEqual(try XCTUnwrap(relative(8, wide, channel: channel)), 0, accuracy: 0.01) }
        XCTAssertEqual(try XCTUnwrap(relative(8, wide, channel: 4)), surroundGain, accuracy: 0.01)
    }

    func testTech3342LoudnessRangeCases() throws {
        let cases: [([(Double, Double)], Double)] = [
            ([(-20, 20), (-30, 20)], 10),
            ([(-20, 20), (-15, 20)], 5),
            ([(-40, 20), (-20, 20)], 20),
            ([(-50, 20), (-35, 20), (-20, 20), (-35, 20), (-50, 20)], 15),
        ]
        for (segments, expected) in cases {
            let lra = try XCTUnwrap(loudness(toneSequence(segments)).rangeLU)
            XCTAssertEqual(lra, expected, accuracy: 1, "segments \(segments)")
        }
    }

    /// Tech 3342 (2016) takes short-term values at 10 Hz or more. A level alternating every second (−20 and
    /// −40 dBFS) puts between 1 and 2 s of the loud part in a 3 s window, evenly spread as the window slides:
    /// the range is then the spread between the windows holding 1.1 s and 1.95 s of it (the 10th and 95th
    /// percentiles), 2.4 LU. A 1 s grid of windows sees only the two extremes, 1 s and 2 s, and reads 2.95.
    func testLoudnessRangeSamplesShortTermLoudnessTenTimesASecond() throws {
        let alternating = toneSequence((0..<30).flatMap { _ in [(-20.0, 1.0), (-40.0, 1.0)] })
        let quiet = pow(10, -20.0 / 10)     // the quiet part's energy relative to the loud part's
        func window(loudSeconds a: Double) -> Double { 10 * log10((a + (3 - a) * quiet) / 3) }
        let expected = window(loudSeconds: 1.95) - window(loudSeconds: 1.1)
        XCTAssertEqual(try XCTUnwrap(loudness(alternating).rangeLU), expected, accuracy: 0.15)
    }

    /// Tech 3341 true-peak signals as described there: tones whose samples miss the waveform's crest by a
    /// known phase, so the sample peak lies below the true peak; tolerance +0.2 / −0.4 dB.
    func testTruePeakOfIntersampleTones() throws {
        let cases: [(rate: Int, frequency: Double, phaseDegrees: Double, dBTP: Double)] = [
            (48000, 12000, 0, -6), (48000, 12000, 45, -6), (48000, 8000, 60, -6), (48000, 6000, 67.5, -6),
            (48000, 12000, 45, 3), (44100, 11025, 45, -6), (96000, 12000, 45, -6), (192000, 12000, 45, -6),
        ]
        for c in cases {
            // Faded in and out over 10 ms, as a tone in a file would be: an abrupt start rings in any
            // interpolator and is not what these cases measure.
            var s = tone(frequency: c.frequency, peakDB: c.dBTP, seconds: 1, sampleRate: c.rate,
                         channels: 2, phase: c.phaseDegrees * Double.pi / 180)
            fade(&s, channels: 2, frames: c.rate / 100)
            let tp = try XCTUnwrap(loudness(s, rate: c.rate).truePeakDBTP)
            XCTAssertLessThanOrEqual(tp, c.dBTP + 0.2, "\(c)")
            XCTAssertGreaterThanOrEqual(tp, c.dBTP - 0.4, "\(c)")
        }
        // The fs/4 tone at 45° has every sample 3 dB under its crest: the sample peak says so.
        var s = tone(frequency: 12000, peakDB: -6, seconds: 1, sampleRate: 48000, channels: 2, phase: Double.pi / 4)
        fade(&s, channels: 2, frames: 480)
        XCTAssertEqual(try XCTUnwrap(loudness(s).samplePeakDBFS), -9.01, accuracy: 0.05)
    }

    /// The meter skips whole blocks of a channel that cannot raise the true peak: a channel whose samples
    /// are the quieter ones but whose waveform crests between them must still be the one measured.
    func testTruePeakFoundOnTheChannelWithTheQuieterSamples() throws {
        let left = tone(frequency: 1000, peakDB: -2, seconds: 2, sampleRate: 48000, channels: 2, active: [0])
        // fs/4 at 45°: every sample 3 dB under the crest at −0.5 dBTP.
        var right = tone(frequency: 12000, peakDB: -0.5, seconds: 2, sampleRate: 48000, channels: 2, active: [1],
                         phase: Double.pi / 4)
        fade(&right, channels: 2, frames: 480)
        let l = loudness(zip(left, right).map { $0 + $1 })
        XCTAssertEqual(try XCTUnwrap(l.samplePeakDBFS), -2, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(l.truePeakDBTP), -0.5, accuracy: 0.2)
    }

    func testSilenceGivesNullLoudnessNotInfinity() {
        let l = loudness([Float](repeating: 0, count: 48000 * 2 * 3))
        XCTAssertNil(l.integratedLUFS)
        XCTAssertNil(l.rangeLU)
        XCTAssertNil(l.truePeakDBTP)
        XCTAssertNil(l.replayGainDB)
    }

    func testSampleRateIndependence() throws {
        var values: [Double] = []
        for rate in [22050, 32000, 44100, 48000, 96000] {
            values.append(try XCTUnwrap(loudness(toneSequence([(-23, 5)], sampleRate: rate), rate: rate).integratedLUFS))
        }
        for v in values { XCTAssertEqual(v, -23, accuracy: 0.1) }
    }

    func testMonoIsOneChannelOfWeightOne() throws {
        // The same tone in mono measures 3 dB under its stereo version (one channel summed instead of two).
        let mono = try XCTUnwrap(loudness(toneSequence([(-23, 5)], channels: 1), channels: 1).integratedLUFS)
        XCTAssertEqual(mono, -26.01, accuracy: 0.1)
    }

    func testReplayGainFollowsMinus18Reference() throws {
        let l = loudness(toneSequence([(-23, 5)]))
        XCTAssertEqual(try XCTUnwrap(l.replayGainDB), 5, accuracy: 0.1)
    }

    func testBlockSizeDoesNotChangeResults() throws {
        let s = toneSequence([(-30, 4), (-20, 4)])
        let a = analyse(s, sampleRate: 48000, channels: 2, options: only("loudness"), blockFrames: 4096).loudness!
        let b = analyse(s, sampleRate: 48000, channels: 2, options: only("loudness"), blockFrames: 333).loudness!
        XCTAssertEqual(try XCTUnwrap(a.integratedLUFS), try XCTUnwrap(b.integratedLUFS), accuracy: 1e-6)
        XCTAssertEqual(a.truePeak, b.truePeak, accuracy: 1e-6)
    }
}
