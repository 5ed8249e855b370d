@testable import Analysis
import XCTest

/// The dynamic-programming beat tracker on hand-made onset envelopes, where every beat's frame is known.
final class BeatTrackerTests: XCTestCase {
    /// An envelope of `frames` zeros with `height` at each frame listed.
    private func envelope(_ frames: Int, pulses: [Int], height: Float = 1) -> [Float] {
        var e = [Float](repeating: 0, count: frames)
        for p in pulses where p < frames { e[p] = height }
        return e
    }

    func testFollowsAPulseAtItsPeriodAndPhase() throws {
        let pulses = Array(stride(from: 13, to: 2000, by: 40))
        let beats = try XCTUnwrap(BeatTracker.track(envelope(2000, pulses: pulses), period: 40))
        XCTAssertEqual(beats.frames, pulses)
        XCTAssertEqual(beats.gridPhase, 13, accuracy: 0.5)
        XCTAssertEqual(beats.onGrid, 1)
    }

    // Weak off-beats between strong beats: the chain keeps to the beats, and the grid's phase with it.
    func testStaysOnTheBeatsWhenTheOffBeatsAreWeaker() throws {
        var e = envelope(2000, pulses: Array(stride(from: 7, to: 2000, by: 40)))
        for p in stride(from: 27, to: 2000, by: 40) { e[p] = 0.4 }
        let beats = try XCTUnwrap(BeatTracker.track(e, period: 40))
        XCTAssertTrue(beats.frames.allSatisfy { ($0 - 7) % 40 == 0 }, "\(beats.frames.prefix(8))")
        XCTAssertEqual(beats.gridPhase, 7, accuracy: 0.5)
    }

    // One beat played late (a push): the tracked beat moves with it, the grid does not.
    func testAPushedBeatIsFollowedWithoutMovingTheGrid() throws {
        var pulses = Array(stride(from: 0, to: 2000, by: 40))
        pulses[20] += 4
        let beats = try XCTUnwrap(BeatTracker.track(envelope(2000, pulses: pulses), period: 40))
        XCTAssertTrue(beats.frames.contains(pulses[20]))
        XCTAssertEqual(beats.gridPhase, 0.08, accuracy: 0.5)
        XCTAssertGreaterThan(beats.onGrid, 0.95)
    }

    // Pulses that change period halfway do not hold to one grid.
    func testBeatsThatLeaveTheGridLowerItsShare() throws {
        let pulses = Array(stride(from: 0, to: 1000, by: 40)) + Array(stride(from: 1000, to: 2000, by: 46))
        let beats = try XCTUnwrap(BeatTracker.track(envelope(2000, pulses: pulses), period: 40))
        XCTAssertLessThan(beats.onGrid, 0.8)
    }

    // The beat displaced by half a period halfway, the chain crossing over on an onset between (a dropped
    // eighth): each half keeps to its own grid, so the grid is one of the two and holds about half the
    // beats, not the phase between them (the crossing's) that holds none.
    func testAHalfBeatDisplacementKeepsTheGridOfOneHalf() throws {
        let pulses = Array(stride(from: 10, to: 1000, by: 40)) + [1000] + Array(stride(from: 1030, to: 2000, by: 40))
        let beats = try XCTUnwrap(BeatTracker.track(envelope(2000, pulses: pulses), period: 40))
        let nearest = [10.0, 30.0].map { abs(beats.gridPhase - $0) }.min()!
        XCTAssertLessThan(nearest, 1, "grid phase \(beats.gridPhase)")
        XCTAssertGreaterThan(beats.onGrid, 0.45)
    }

    // Beats 0.15 % slower than the period asked for (the autocorrelation's estimate is off by that much):
    // 500 beats drift 30 frames from a grid at the period asked for, but lie on the line through them.
    func testTheGridFollowsTheBeatsWhereThePeriodAskedForIsSlightlyOff() throws {
        let spacing = 40.06
        let pulses = (0..<500).map { Int((13 + spacing * Double($0)).rounded()) }
        let beats = try XCTUnwrap(BeatTracker.track(envelope(20_100, pulses: pulses), period: 40, settleFrames: 1800))
        XCTAssertEqual(beats.gridPeriod, spacing, accuracy: 0.002)
        XCTAssertGreaterThan(beats.onGrid, 0.99)
        let lastOnGrid = beats.gridPhase + (Double(pulses.last!) / beats.gridPeriod).rounded() * beats.gridPeriod
        XCTAssertEqual(lastOnGrid, Double(pulses.last!), accuracy: 1)
    }

    // Beats at a tempo 1 % off the period asked for are a different level or section, not a refinement:
    // the grid keeps the period asked for.
    func testAGridFarFromThePeriodAskedForIsNotFitted() throws {
        let pulses = (0..<100).map { Int((13 + 40.4 * Double($0)).rounded()) }
        let beats = try XCTUnwrap(BeatTracker.track(envelope(4100, pulses: pulses), period: 40, settleFrames: 1000))
        XCTAssertEqual(beats.gridPeriod, 40)
    }

    // Two stretches of one pulse with 200 beats of digital silence between: the chain runs on through the
    // silence in whole frames, but those are no beats and do not count against the grid.
    func testASilentGapHoldsNoBeats() throws {
        let pulses = (0..<400).filter { $0 < 100 || $0 >= 300 }.map { Int((13 + 40.3 * Double($0)).rounded()) }
        let beats = try XCTUnwrap(BeatTracker.track(envelope(16_200, pulses: pulses), period: 40.3, settleFrames: 1800))
        XCTAssertGreaterThan(beats.onGrid, 0.95)
        XCTAssertEqual(beats.gridPeriod, 40.3, accuracy: 0.01)
        XCTAssertTrue(beats.frames.allSatisfy { pulses.contains($0) }, "a beat in the silence")
    }

    func testNothingToTrackGivesNil() {
        XCTAssertNil(BeatTracker.track([Float](repeating: 0, count: 2000), period: 40))
        XCTAssertNil(BeatTracker.track(envelope(100, pulses: [0, 40, 80]), period: 40), "shorter than four periods")
    }
}
