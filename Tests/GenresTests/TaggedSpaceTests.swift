import Analysis
@testable import Genres
@testable import Similarity
import XCTest

/// The sonic space on the tagger's embedding: feature vectors without any grouping, and three planted groups
/// in the embedding and the tags (mellow acoustic, electronic dance, heavy metal).
enum TaggedFixture {
    static let plantedTags = [["Mellow", "acoustic"], ["electronic", "dance"], ["heavy metal", "metal"]]

    static func tracks(perGroup: Int = 12, embedded: Int? = nil) -> [TrackInput] {
        var rng = SeededRandom(seed: 7)
        func normal() -> Float { Float(rng.normal()) }
        let centres = (0..<3).map { _ in (0..<SonicSpace.embeddingWidth).map { _ in 2 * normal() } }
        var out: [TrackInput] = []
        for g in 0..<3 {
            for i in 0..<perGroup {
                var tags = MusicnnTags.names.map { _ in 0.05 + 0.02 * abs(normal()) }
                for tag in plantedTags[g] { tags[MusicnnTags.names.firstIndex(of: tag)!] = 0.5 + 0.1 * normal() }
                let n = out.count
                out.append(TrackInput(path: "g\(g)/\(String(format: "%02d", i)).flac", artist: "Artist \(i % 4)",
                                      bpm: 100 + Double(i), features: SonicFixture.names.map { _ in normal() },
                                      key: MusicalKey(tonic: i % 12, minor: g == 2), duration: 200,
                                      tags: n < (embedded ?? .max) ? tags : nil,
                                      embedding: n < (embedded ?? .max) ? centres[g].map { $0 + 0.5 * normal() } : nil))
            }
        }
        return out
    }
}

final class TaggedSpaceTests: XCTestCase {
    func testTheEmbeddingIsTheBasisAndFindsTheGroupsTheFeaturesDoNotHold() throws {
        let space = try XCTUnwrap(SonicSpace(TaggedFixture.tracks(), names: SonicFixture.names))
        XCTAssertEqual(space.basis, .embedding)
        XCTAssertEqual(space.dimensions, SonicSpace.embeddingWidth)
        for row in 0..<space.count {
            let group = space.tracks[row].path.prefix(2)
            XCTAssertTrue(space.nearest(to: row, count: 5).allSatisfy { space.tracks[$0.row].path.hasPrefix(group) },
                          "the neighbours of \(space.tracks[row].path) come from its group")
        }
        let features = try XCTUnwrap(SonicSpace(TaggedFixture.tracks().map { var t = $0; t.embedding = nil; return t },
                                                names: SonicFixture.names))
        XCTAssertEqual(features.basis, .features)
        let same = (0..<features.count).filter { row in
            features.tracks[features.nearest(to: row, count: 1)[0].row].path.prefix(2) == features.tracks[row].path.prefix(2)
        }.count
        XCTAssertLessThan(same, 24, "the feature vectors hold no groups, so the test above can only pass on the embedding")
    }

    func testUnrelatedTracksLieAboutRootTwoApartAsInTheFeatureBasis() throws {
        var rng = SeededRandom(seed: 3)
        let tracks = (0..<200).map { i in
            TrackInput(path: String(format: "%03d.flac", i), features: SonicFixture.names.map { _ in Float(rng.normal()) },
                       tags: MusicnnTags.names.map { _ in Float(abs(rng.normal())) / 4 },
                       embedding: (0..<SonicSpace.embeddingWidth).map { _ in 1 + Float(rng.normal()) })
        }
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        var sum = 0.0, pairs = 0
        for a in 0..<space.count { for b in (a + 1)..<space.count { sum += space.distance(a, b) * space.distance(a, b); pairs += 1 } }
        XCTAssertEqual(sum / Double(pairs), 2, accuracy: 0.05)
    }

    func testAMinorityOfTaggedTracksKeepsTheFeatureBasisAndAMajorityLeavesTheRestWaiting() throws {
        let few = try XCTUnwrap(SonicSpace(TaggedFixture.tracks(embedded: 17), names: SonicFixture.names))
        XCTAssertEqual(few.basis, .features)
        XCTAssertEqual(few.count, 36)
        let most = try XCTUnwrap(SonicSpace(TaggedFixture.tracks(embedded: 20), names: SonicFixture.names))
        XCTAssertEqual(most.basis, .embedding)
        XCTAssertEqual(most.count, 20, "tracks still without an embedding wait for their analysis")
    }

    func testClustersAreNamedFromTheTagsThatSetThemApartInWordsAListenerUses() throws {
        let space = try XCTUnwrap(SonicSpace(TaggedFixture.tracks(), names: SonicFixture.names))
        let genres = SonicClusters(space: space, maxShare: 0.6, minSize: 3).genres()
        XCTAssertEqual(Set(genres.map(\.name)), ["Mellow Acoustic", "Electronic Dance", "Heavy Metal"],
                       "mood words first; 'metal' adds nothing to 'heavy metal'")
        for genre in genres {
            XCTAssertFalse(genre.description.contains("σ"), genre.description)
            for member in genre.members { XCTAssertFalse(member.explanation.contains("σ"), member.explanation) }
        }
        let metal = try XCTUnwrap(genres.first { $0.name == "Heavy Metal" })
        XCTAssertTrue(metal.description.contains("mostly minor keys"), metal.description)
        let member = try XCTUnwrap(metal.members.first)
        XCTAssertTrue(member.explanation.hasPrefix("cluster: heavy metal 50 % (library 21 %)"), member.explanation)
        XCTAssertTrue(member.explanation.contains("this track: heavy metal "), member.explanation)
    }

    /// Tags every track holds alike at a few percent name nothing: a cluster no tag sets apart is named by
    /// what was measured of it.
    func testAClusterNoTagSetsApartIsNamedByItsMeasuredTraits() throws {
        let bright = ["centroid_oct_mean", "rolloff_oct_mean"].map { SonicFixture.names.firstIndex(of: $0)! }
        let tracks = TaggedFixture.tracks().map { t -> TrackInput in
            var t = t
            t.tags = t.tags!.map { _ in 0.05 }
            if t.path.hasPrefix("g0") { for j in bright { t.features![j] += 4 } }
            return t
        }
        let space = try XCTUnwrap(SonicSpace(tracks, names: SonicFixture.names))
        let genres = SonicClusters(space: space, maxShare: 0.6, minSize: 3).genres()
        let first = try XCTUnwrap(genres.first { $0.members.contains { $0.path.hasPrefix("g0") } })
        XCTAssertTrue(first.name.hasPrefix("Bright"), first.name)
        XCTAssertTrue(first.description.contains("set apart by no tag"), first.description)
    }

    func testTheWhyNamesTheTagsBothTracksStandOutOn() throws {
        let space = try XCTUnwrap(SonicSpace(TaggedFixture.tracks(), names: SonicFixture.names))
        let row = try XCTUnwrap(space.index(of: "g0/00.flac"))
        let why = space.why(row, try XCTUnwrap(space.index(of: "g0/01.flac")))
        XCTAssertTrue(why.hasSuffix("both mellow and acoustic") || why.hasSuffix("both acoustic and mellow"), why)
    }

    func testRelatedTagsAreNotNamedTwice() {
        let index = { (name: String) in MusicnnTags.names.firstIndex(of: name)! }
        let ranked = ["electronic", "electronica", "electro", "heavy metal", "metal", "female vocalists", "female vocalist", "chill", "chillout", "rock"].map(index)
        XCTAssertEqual(MusicnnTags.distinct(ranked, count: 10).map(MusicnnTags.title),
                       ["Electronic", "Heavy Metal", "Female Vocalists", "Chill", "Rock"])
        XCTAssertEqual(MusicnnTags.distinct(["metal", "rock", "heavy metal"].map(index), count: 2).map(MusicnnTags.title),
                       ["Heavy Metal", "Rock"], "the narrower tag takes the broader one's place")
        XCTAssertEqual(MusicnnTags.title(index("rnb")), "R&B")
        XCTAssertEqual(MusicnnTags.title(index("Hip-Hop")), "Hip-Hop")
    }
}
