import Analysis
@testable import Genres
@testable import Similarity
import XCTest

/// A small library in the sonic space: planted groups of feature vectors with tempi, keys and artists.
enum SonicFixture {
    static let names = (1...6).map { "mfcc\($0)_mean" } + ["centroid_oct_mean", "rolloff_oct_mean", "flatness_log_mean",
        "contrast1_mean", "onset_rate", "attack", "key_strength", "minor"]

    /// `groups` centres far apart, `perGroup` tracks around each (SplitMix normals, so the same every run).
    static func tracks(groups: Int = 3, perGroup: Int = 12, spread: Float = 0.5) -> [TrackInput] {
        var rng = SeededRandom(seed: 42)
        func normal() -> Float { Float(rng.normal()) }
        var out: [TrackInput] = []
        for g in 0..<groups {
            let centre = names.indices.map { Float(($0 * 7 + g * 13) % 5) * Float(g + 1) * 0.8 }
            for i in 0..<perGroup {
                var t = TrackInput(path: "g\(g)/\(String(format: "%02d", i)).flac", title: "Song \(g)-\(i)",
                                   artist: "Artist \(i % 3)", bpm: 90 + Double(g) * 30 + Double(i % 3),
                                   lufs: -14 + Double(g), features: centre.map { $0 + spread * normal() },
                                   key: MusicalKey(tonic: (g * 7 + i % 2) % 12, minor: g == 1),
                                   duration: 150 + Double(i * 7))
                if g == 1 { t.features![names.firstIndex(of: "minor")!] = 1 }
                out.append(t)
            }
        }
        return out
    }
}

final class SonicSpaceTests: XCTestCase {
    func testNearestNeighboursComeFromTheSameGroupAndAreOrdered() throws {
        let space = try XCTUnwrap(SonicSpace(SonicFixture.tracks(), names: SonicFixture.names))
        XCTAssertEqual(space.dimensions, SonicFixture.names.count + 1, "the stored dimensions plus log₂ tempo")
        for row in [0, 13, 30] {
            let found = space.nearest(to: row, count: 5)
            XCTAssertEqual(found.count, 5)
            XCTAssertFalse(found.contains { $0.row == row }, "a track is not its own neighbour")
            let group = space.tracks[row].path.prefix(2)
            XCTAssertTrue(found.allSatisfy { space.tracks[$0.row].path.hasPrefix(group) }, "\(found.map { space.tracks[$0.row].path })")
            XCTAssertEqual(found.map(\.distance), found.map(\.distance).sorted())
            // The scan agrees with distances computed one by one.
            let brute = (0..<space.count).filter { $0 != row }.sorted { space.distance(row, $0) < space.distance(row, $1) }.prefix(5)
            XCTAssertEqual(found.map(\.row), Array(brute))
        }
    }

    func testAnExactCopyIsTheNearestAndTheWhyNamesKeyAndTempo() throws {
        var tracks = SonicFixture.tracks()
        var copy = tracks[5]
        copy.path = "copies/g0-05.ogg"
        tracks.append(copy)
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let row = try XCTUnwrap(space.index(of: "copies/g0-05.ogg"))
        let nearest = try XCTUnwrap(space.nearest(to: row, count: 1).first)
        XCTAssertEqual(space.tracks[nearest.row].path, "g0/05.flac")
        XCTAssertEqual(nearest.distance, 0, accuracy: 1e-6)
        let why = space.why(row, nearest.row)
        XCTAssertTrue(why.hasPrefix("same key, same tempo"), why)
        XCTAssertTrue(why.contains("similar"), why)
    }

    func testTheSpaceDoesNotDependOnInputOrderAndSkipsTracksWithoutAVector() throws {
        var tracks = SonicFixture.tracks()
        tracks.append(TrackInput(path: "none/no-vector.flac", bpm: 120))
        tracks.append(TrackInput(path: "none/short.flac", features: [1, 2, 3]))
        let a = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let b = try XCTUnwrap(SonicSpace(tracks.reversed(), names: SonicFixture.names))
        XCTAssertEqual(a.count, 36)
        XCTAssertNil(a.index(of: "none/no-vector.flac"))
        XCTAssertEqual(a.values, b.values)
        XCTAssertEqual(a.tracks.map(\.path), b.tracks.map(\.path))
    }

    /// A tempo under the trusted confidence is most often another metrical level: read at twice its group's
    /// tempo, a track must not be placed a whole octave away on the tempo axis, but where a missing tempo is.
    func testAnUnsureTempoIsLeftOutOfTheSpaceLikeAMissingOne() throws {
        var tracks = SonicFixture.tracks()
        let sure = tracks[1].bpm!
        tracks[0].bpm = 2 * tracks[0].bpm!
        tracks[0].bpmConfidence = 0.2
        tracks[0].bpmAlternative = tracks[0].bpm! / 2
        tracks[1].bpmConfidence = 0.8
        tracks[2].bpm = nil
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let tempo = space.dimensions - 1
        XCTAssertEqual(space.names[tempo], SonicSpace.tempoDimension)
        let unsure = try XCTUnwrap(space.index(of: tracks[0].path)), trusted = try XCTUnwrap(space.index(of: tracks[1].path))
        let missing = try XCTUnwrap(space.index(of: tracks[2].path))
        XCTAssertEqual(space.values[missing * space.dimensions + tempo], 0)
        XCTAssertEqual(space.values[unsure * space.dimensions + tempo], 0, "an unsure 2× reading sits where a missing tempo does")
        XCTAssertEqual(space.trait(unsure, .tempo), 0)
        XCTAssertLessThan(space.values[trusted * space.dimensions + tempo], 0, "\(sure) BPM is below the library's mean tempo")
    }

    func testGroupWeightsGiveEachGroupItsShareWhateverItsSize() throws {
        let space = try XCTUnwrap(SonicSpace(SonicFixture.tracks(), names: SonicFixture.names))
        var share: [SonicSpace.Group: Double] = [:]
        for (j, name) in space.names.enumerated() { share[SonicSpace.Group.of(name), default: 0] += Double(space.weights[j] * space.weights[j]) }
        XCTAssertEqual(share[.timbre]!, 0.70, accuracy: 1e-5)
        XCTAssertEqual(share[.rhythm]!, 0.25, accuracy: 1e-5)
        XCTAssertEqual(share[.tonal]!, 0.05, accuracy: 1e-5)
        // Features analyzer version 4's percussive share is a rhythm dimension: the group keeps its share.
        let names = SonicFixture.names + ["percussive_log"]
        let tracks = SonicFixture.tracks().enumerated().map { i, t in
            var t = t
            t.features!.append(Float(i % 5))
            return t
        }
        let withPercussion = try XCTUnwrap(SonicSpace(tracks, names: names))
        XCTAssertEqual(SonicSpace.Group.of("percussive_log"), .rhythm)
        var rhythm = 0.0
        for (j, name) in withPercussion.names.enumerated() where SonicSpace.Group.of(name) == .rhythm {
            rhythm += Double(withPercussion.weights[j] * withPercussion.weights[j])
        }
        XCTAssertEqual(rhythm, 0.25, accuracy: 1e-5)
    }

    func testKeyRelationsFollowTheCamelotWheel() throws {
        let c = MusicalKey(tonic: 0, minor: false), am = MusicalKey(tonic: 9, minor: true)
        XCTAssertEqual(c.camelotName, "8B")
        XCTAssertEqual(am.camelotName, "8A")
        XCTAssertEqual(MusicalKey(tonic: 7, minor: false).camelotName, "9B")
        XCTAssertEqual(MusicalKey(tonic: 4, minor: true).camelotName, "9A")
        XCTAssertEqual(MusicalKey(tonic: 5, minor: false).camelotName, "7B")
        XCTAssertEqual(KeyRelation(c, c), .same)
        XCTAssertEqual(KeyRelation(c, am), .relative)
        XCTAssertEqual(KeyRelation(c, MusicalKey(tonic: 7, minor: false)), .fifth)
        XCTAssertEqual(KeyRelation(c, MusicalKey(tonic: 5, minor: false)), .fifth)
        XCTAssertEqual(KeyRelation(c, MusicalKey(tonic: 0, minor: true)), .parallel)
        XCTAssertEqual(KeyRelation(c, MusicalKey(tonic: 6, minor: false)), .distant(6))
        XCTAssertFalse(KeyRelation(c, MusicalKey(tonic: 2, minor: false)).isCompatible)
    }

    func testTempoRelationFoldsOctaves() {
        let double = TempoRelation(60, 121)
        XCTAssertEqual(double.octave, 1)
        XCTAssertEqual(double.percent, 0.83, accuracy: 0.01)
        XCTAssertTrue(double.isMatchable)
        let near = TempoRelation(120, 124)
        XCTAssertEqual(near.octave, 0)
        XCTAssertEqual(near.percent, 3.33, accuracy: 0.01)
        XCTAssertTrue(near.isMatchable)
        XCTAssertFalse(TempoRelation(120, 132).isMatchable)
        XCTAssertFalse(TempoRelation(120, 90).isMatchable, "3:4 is no beat-matchable level")
    }

    func testProjectionFindsTheMainAxis() throws {
        // Six dimensions moving together along one direction, one uncorrelated across it (onset rate): the first
        // axis carries the six (weight 6 × 0.06 against 0.6/7·… for the one), the second the other.
        let tracks = (0..<40).map { i -> TrackInput in
            let t = Float(i) / 4
            return TrackInput(path: "p/\(String(format: "%02d", i))", features: SonicFixture.names.indices.map { j in
                j < 6 ? t : (SonicFixture.names[j] == "onset_rate" ? Float((i * 7) % 5) : 0)
            })
        }
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let projection = Projection(space)
        XCTAssertGreaterThan(projection.explained.0, 0.75)
        XCTAssertGreaterThan(projection.explained.0 + projection.explained.1, 0.99)
        // Along the axis the order of the points is kept (in one direction or the other).
        let xs = projection.x
        XCTAssertTrue(zip(xs, xs.dropFirst()).allSatisfy { $0 < $1 } || zip(xs, xs.dropFirst()).allSatisfy { $0 > $1 })
        let again = Projection(space)
        XCTAssertEqual(again.x, xs, "the same space gives the same map")
    }
}

final class MixPlannerTests: XCTestCase {
    func testMixStartsWithTheSeedNeverRepeatsAnArtistOrARecordingAndStaysNear() throws {
        var tracks = SonicFixture.tracks(groups: 3, perGroup: 20)
        // Another encoding of the seed: the mix must not play it again.
        var copy = tracks[0]
        copy.path = "copies/seed.mp3"
        tracks.append(copy)
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let seed = try XCTUnwrap(space.index(of: "g0/00.flac"))
        let steps = MixPlanner(space: space).plan(seed: seed, count: 12)
        XCTAssertEqual(steps.count, 12)
        XCTAssertEqual(steps.first?.row, seed)
        XCTAssertEqual(steps.first?.transition, "seed")
        XCTAssertEqual(Set(steps.map(\.row)).count, 12)
        XCTAssertFalse(steps.contains { space.tracks[$0.row].path == "copies/seed.mp3" })
        for (a, b) in zip(steps, steps.dropFirst()) {
            XCTAssertNotEqual(space.tracks[a.row].artist, space.tracks[b.row].artist)
        }
        XCTAssertTrue(steps.allSatisfy { space.tracks[$0.row].path.hasPrefix("g0/") }, "a mix stays in the seed's neighbourhood")
        for step in steps.dropFirst() {
            XCTAssertTrue(step.transition.contains("BPM") && step.transition.contains("→"), step.transition)
        }
        XCTAssertEqual(MixPlanner(space: space).plan(seed: seed, count: 12), steps, "the same library gives the same mix")
    }

    /// Every recording held eight times (albums, deluxe editions, compilations, transcodes): the mix still
    /// finds 12 different ones. Before, the copies filled the pool and the mix stopped early.
    func testCopiesOfEveryRecordingDoNotShortenTheMix() throws {
        let originals = SonicFixture.tracks(groups: 3, perGroup: 20)
        var tracks: [TrackInput] = []
        for copy in 0..<8 {
            for var t in originals {
                t.path = "copy\(copy)/" + t.path
                tracks.append(t)
            }
        }
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let seed = try XCTUnwrap(space.index(of: "copy0/g0/00.flac"))
        let steps = MixPlanner(space: space).plan(seed: seed, count: 12)
        XCTAssertEqual(steps.count, 12)
        let recordings = steps.map { String(space.tracks[$0.row].path.split(separator: "/", maxSplits: 1)[1]) }
        XCTAssertEqual(Set(recordings).count, 12, "\(recordings)")
    }

    /// Two songs as long as each other and alike in sound but in different keys are two recordings: the mix
    /// had dropped the second as a copy of the first (the sonic space's chroma is relative to the key).
    func testAnotherKeyIsAnotherRecordingHoweverAlikeTheSound() throws {
        let base: [Float] = SonicFixture.names.map { _ in 0 }
        func track(_ path: String, _ artist: String, tonic: Int, shift: Float, duration: Double = 180) -> TrackInput {
            var v = base
            v[0] = shift
            return TrackInput(path: path, artist: artist, bpm: 120, features: v, key: MusicalKey(tonic: tonic, minor: false),
                              duration: duration)
        }
        var tracks = [track("seed.flac", "A", tonic: 0, shift: 0), track("transposed.flac", "B", tonic: 7, shift: 0.01),
                      track("copy.mp3", "C", tonic: 0, shift: 0.01)]
        for i in 0..<8 { tracks.append(track("far/\(i).flac", "F\(i)", tonic: 0, shift: 3 + Float(i), duration: 200 + Double(i))) }
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let planner = MixPlanner(space: space)
        let seed = try XCTUnwrap(space.index(of: "seed.flac"))
        let typical = { (_: Int) in 3.0 }
        XCTAssertFalse(planner.isRepeat(seed, space.index(of: "transposed.flac")!, typical: typical))
        XCTAssertTrue(planner.isRepeat(seed, space.index(of: "copy.mp3")!, typical: typical), "same key: another encoding")
        let steps = planner.plan(seed: seed, count: 2)
        XCTAssertEqual(space.tracks[steps[1].row].path, "transposed.flac")
    }

    /// Two encodings of one recording far from a seed in a dense neighbourhood, one padded with silence: the
    /// mix takes one of them. They had both come in, their distance being measured against the seed's typical
    /// neighbour distance (small here) and their lengths compared with the padding.
    func testACopyFarFromTheSeedOrPaddedIsStillTheSameRecording() throws {
        let base: [Float] = SonicFixture.names.map { _ in 0 }
        func track(_ path: String, _ v0: Float, _ v1: Float, duration: Double, sounding: Double) -> TrackInput {
            var v = base
            v[0] = v0
            v[1] = v1
            return TrackInput(path: path, artist: path, bpm: 120, features: v, key: MusicalKey(tonic: 0, minor: false),
                              duration: duration, soundingDuration: sounding)
        }
        var tracks: [TrackInput] = []
        // A tight group around the seed, each of its own length.
        for i in 0..<30 { tracks.append(track("near/\(i).flac", 0.02 * Float(i % 6), 0.02 * Float(i / 6), duration: 100 + 3 * Double(i), sounding: 99 + 3 * Double(i))) }
        // The recording twice, out where tracks lie far apart: once as it was, once with 4 s of silence added.
        tracks.append(track("far/song.flac", 3, 0, duration: 200, sounding: 199))
        tracks.append(track("far/song padded.mp3", 3.15, 0, duration: 204, sounding: 199.1))
        for i in 0..<6 { tracks.append(track("far/other\(i).flac", 3 + Float(i), 2 + Float(i), duration: 300 + 5 * Double(i), sounding: 299 + 5 * Double(i))) }
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let steps = MixPlanner(space: space).plan(seed: space.index(of: "near/0.flac")!, count: 38)
        let paths = steps.map { space.tracks[$0.row].path }
        XCTAssertTrue(paths.contains("far/song.flac") != paths.contains("far/song padded.mp3"), "\(paths)")
        XCTAssertEqual(steps.count, 37, "every other recording is in the mix")
    }

    /// "A feat. B" right after "A" is the same artist twice in a row: it had counted as another artist.
    func testAGuestCreditIsStillTheSameArtist() throws {
        let base: [Float] = SonicFixture.names.map { _ in 0 }
        func track(_ path: String, _ artist: String, shift: Float) -> TrackInput {
            var v = base
            v[0] = shift
            // Lengths far apart: two near tracks as long as each other would be one recording twice.
            return TrackInput(path: path, artist: artist, bpm: 120, features: v, key: MusicalKey(tonic: 0, minor: false),
                              duration: 180 + 10 * Double(shift))
        }
        var tracks = [track("seed.flac", "Aya", shift: 0), track("guest.flac", "Aya feat. Bo", shift: 0.2),
                      track("other.flac", "Cid", shift: 0.6)]
        for i in 0..<8 { tracks.append(track("far/\(i).flac", "F\(i)", shift: 5 + Float(i))) }
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let steps = MixPlanner(space: space).plan(seed: space.index(of: "seed.flac")!, count: 2)
        XCTAssertEqual(space.tracks[steps[1].row].path, "other.flac")
    }

    func testMixPrefersABeatMatchableTempo() throws {
        // Two candidates equally near in sound: one at +2 % tempo, one at +12 %.
        let base: [Float] = SonicFixture.names.map { _ in 0 }
        func track(_ path: String, _ bpm: Double, _ artist: String, shift: Float) -> TrackInput {
            var v = base
            v[0] = shift
            return TrackInput(path: path, artist: artist, bpm: bpm, features: v, key: MusicalKey(tonic: 0, minor: false),
                              duration: 180 + Double(path.count))
        }
        var tracks = [track("seed.flac", 120, "A", shift: 0), track("near-tempo.flac", 122.4, "B", shift: 0.5),
                      track("far-tempo.flac", 134.4, "C", shift: -0.5)]
        // Filler, far away, so the standardisation has a spread to work with.
        for i in 0..<8 { tracks.append(track("far/\(i).flac", 80, "F\(i)", shift: 5 + Float(i))) }
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let steps = MixPlanner(space: space).plan(seed: space.index(of: "seed.flac")!, count: 2)
        XCTAssertEqual(space.tracks[steps[1].row].path, "near-tempo.flac")
    }

    /// A tempo under `TempoResult.trusted` confidence is right more often than its alternative (30 of the
    /// development set's 37 renders under it), so a mix beat-matches on `bpm` alone; but "why" does not quote
    /// it as a fact.
    func testAnUncertainTempoIsNotQuotedInTheWhy() throws {
        let base: [Float] = SonicFixture.names.map { _ in 0 }
        func track(_ path: String, _ bpm: Double, shift: Float, confidence: Double = 0.9) -> TrackInput {
            var v = base
            v[0] = shift
            return TrackInput(path: path, bpm: bpm, features: v, key: MusicalKey(tonic: 0, minor: false),
                              bpmConfidence: confidence, bpmAlternative: bpm / 2)
        }
        var tracks = [track("seed.flac", 80, shift: 0), track("near.flac", 82, shift: 0.5)]
        for i in 0..<8 { tracks.append(track("far/\(i).flac", 150, shift: 5 + Float(i))) }
        // Read 2 BPM from the seed: unsure, the tempo is not quoted; sure, it is.
        for (confidence, quoted) in [(0.3, false), (0.9, true)] {
            tracks[1].bpmConfidence = confidence
            let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
            let why = space.why(space.index(of: "seed.flac")!, space.index(of: "near.flac")!)
            XCTAssertEqual(why.contains("2 BPM apart"), quoted, why)
        }
    }

    func testOnlyTrustedTempiNameAClustersTempoSpan() throws {
        let base: [Float] = SonicFixture.names.map { _ in 0 }
        // Ten tracks at 126–134 BPM, six of them unsure: too few sure ones to name the shelf by tempo.
        let tracks = (0..<10).map { i in
            TrackInput(path: "t\(i).flac", bpm: 126 + Double(i % 5) * 2, features: base,
                       bpmConfidence: i < 6 ? 0.2 : 0.8, bpmAlternative: 63 + Double(i % 5))
        }
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let clusters = SonicClusters(space: space, maxShare: 1, minSize: 3)
        XCTAssertNil(clusters.tempoRange(Array(0..<10)))
        XCTAssertEqual(clusters.tempoRange(Array(6..<10))?.text, "125–135 BPM")
    }
}

final class ClusterNamingTests: XCTestCase {
    func testNamesAreUniqueAndGrowByTheNextTraitNotByANumber() {
        // Two clusters whose strongest traits agree (bright, percussive) but differ on the third.
        var a = [Double](repeating: 0, count: SonicTrait.all.count), b = a
        a[SonicTrait.brightness.index] = 1.4; a[SonicTrait.percussiveness.index] = 1.1; a[SonicTrait.noisiness.index] = 0.9
        b[SonicTrait.brightness.index] = 1.3; b[SonicTrait.percussiveness.index] = 1.0; b[SonicTrait.noisiness.index] = -0.8
        var c = [Double](repeating: 0, count: SonicTrait.all.count)
        c[SonicTrait.loudness.index] = -1.2; c[SonicTrait.mode.index] = 0.9; c[SonicTrait.clarity.index] = 0.7
        let names = SonicClusters.uniqueNames([(a, nil, 30, nil), (b, nil, 20, nil), (c, nil, 10, true)]).map(\.name)
        XCTAssertEqual(names[0], "Bright Percussive")
        XCTAssertEqual(names[1], "Bright Percussive Clean")
        XCTAssertEqual(names[2], "Soft Minor", "mode reads last; two adjectives where two suffice")
        XCTAssertEqual(Set(names).count, 3)
    }

    /// A cluster whose mode dimension leans minor but whose keyed members are mostly major is not "Minor"
    /// (Joplin's Maple Leaf Rag in A♭ major opened a cluster named "Minor").
    func testModeNamesAClusterOnlyWhenTwoThirdsOfItsKeysShareIt() {
        var c = [Double](repeating: 0, count: SonicTrait.all.count)
        c[SonicTrait.mode.index] = 1.4; c[SonicTrait.clarity.index] = 0.7
        XCTAssertEqual(SonicClusters.uniqueNames([(c, nil, 10, true)]).first?.name, "Sparse Minor")
        XCTAssertEqual(SonicClusters.uniqueNames([(c, nil, 10, nil)]).first?.name, "Sparse")
        XCTAssertEqual(SonicClusters.uniqueNames([(c, nil, 10, false)]).first?.name, "Sparse")
    }

    func testANarrowTempoSpanJoinsTheName() {
        var a = [Double](repeating: 0, count: SonicTrait.all.count)
        a[SonicTrait.brightness.index] = 1.2
        let span = SonicClusters.TempoRange(low: 125, high: 135, text: "125–135 BPM")
        XCTAssertEqual(SonicClusters.uniqueNames([(a, span, 10, nil)]).first?.name, "Bright 125–135 BPM")
    }
}
