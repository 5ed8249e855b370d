import Analysis
@testable import Similarity
import XCTest

/// `spindle path`: a journey from one track to another through the sonic space.
final class SongPathTests: XCTestCase {
    /// 41 tracks on a line through the space, `along` 0 to 1, each by another artist, one key and tempo.
    func line(copies: [Int] = []) -> [TrackInput] {
        var rng = SeededRandom(seed: 7)
        var out: [TrackInput] = []
        for i in 0...40 {
            let along = Float(i) / 40
            let features = SonicFixture.names.indices.map { j in
                along * Float(j % 3 + 1) * 4 + 0.05 * Float(rng.normal())
            }
            out.append(TrackInput(path: String(format: "line/%02d.flac", i), title: "Step \(i)", artist: "Artist \(i)", bpm: 120,
                                  features: features, key: MusicalKey(tonic: 0, minor: false), duration: 180 + Double(i)))
        }
        for i in copies {
            var copy = out[i]
            copy.path = String(format: "copies/%02d.ogg", i)
            out.append(copy)
        }
        return out
    }

    func along(_ path: String) -> Double { Double(path.dropFirst(5).prefix(2))! / 40 }

    func testThePathRunsFromStartToEndAlongTheWay() throws {
        let space = try XCTUnwrap(SonicSpace(line(), names: SonicFixture.names))
        let start = try XCTUnwrap(space.index(of: "line/00.flac")), end = try XCTUnwrap(space.index(of: "line/40.flac"))
        let steps = SongPath(space: space).plan(from: start, to: end, count: 6)
        let paths = steps.map { space.tracks[$0.row].path }
        XCTAssertEqual(steps.count, 6, "\(paths)")
        XCTAssertEqual(paths.first, "line/00.flac")
        XCTAssertEqual(paths.last, "line/40.flac")
        XCTAssertEqual(Set(paths).count, 6, "no track twice")
        let positions = paths.map(along)
        XCTAssertEqual(positions, positions.sorted(), "\(paths)")
        for (k, position) in positions.enumerated() {
            XCTAssertEqual(position, Double(k) / 5, accuracy: 0.1, "step \(k): \(paths)")
        }
        XCTAssertEqual(steps[1].distance, space.distance(start, steps[1].row), accuracy: 1e-9, "a step's distance is from the one before")
    }

    func testNoRecordingComesTwice() throws {
        let space = try XCTUnwrap(SonicSpace(line(copies: Array(1...39)), names: SonicFixture.names))
        let start = try XCTUnwrap(space.index(of: "line/00.flac")), end = try XCTUnwrap(space.index(of: "line/40.flac"))
        let steps = SongPath(space: space).plan(from: start, to: end, count: 12)
        let titles = steps.map { space.tracks[$0.row].title! }
        XCTAssertEqual(steps.count, 12)
        XCTAssertEqual(Set(titles).count, titles.count, "\(titles)")
    }

    func testAShortLibraryGivesAShorterPathAndAPathToItselfIsOneTrack() throws {
        let space = try XCTUnwrap(SonicSpace(Array(line().prefix(4)), names: SonicFixture.names))
        XCTAssertEqual(SongPath(space: space).plan(from: 0, to: 3, count: 10).count, 4)
        XCTAssertEqual(SongPath(space: space).plan(from: 2, to: 2, count: 10).map(\.row), [2])
    }
}
