@testable import Genres
@testable import Similarity
import XCTest

final class GenreBuilderTests: XCTestCase {
    let taxonomy = Taxonomy(genres: [
        .init(name: "Pop", family: "Pop", aliases: []),
        .init(name: "K-Pop", family: "Pop", aliases: ["kpop", "korean pop"]),
        .init(name: "J-Pop", family: "Pop", aliases: ["jpop"]),
        .init(name: "Synth-Pop", family: "Electronic", aliases: ["synthpop", "new wave"]),
        .init(name: "Rock", family: "Rock", aliases: []),
        .init(name: "Hip-Hop", family: "Hip-Hop", aliases: ["hip hop", "rap"]),
    ])

    var rules: RuleSet {
        var r = RuleSet(rules: [])
        var language = RuleSet.Rule(template: "{language} {family}")
        language.excludeLanguages = ["English"]
        r.rules = [language, RuleSet.Rule(template: "{decade} {genre}")]
        return r
    }

    /// A library with planted structure: Korean pop (Hangul, one with a LANGUAGE tag), Japanese pop (kana),
    /// 80s synth-pop, a Greek pair too small to keep, and untagged tracks at two distinct tempi and levels.
    func library() -> [TrackInput] {
        var t: [TrackInput] = []
        let korean = ["사랑해", "봄날", "너의 이름", "밤하늘", "첫눈"]
        for (i, title) in korean.enumerated() {
            t.append(TrackInput(path: "kpop/\(i).mp3", title: title, artist: "하늘빛", genres: [i == 0 ? "Korean Pop" : "K-Pop"],
                                year: 2019, languageTag: i == 1 ? "kor" : nil, bpm: 120 + Double(i), lufs: -9, loudnessRange: 5))
        }
        for (i, title) in ["夜明け", "さくら", "ひかり", "かぜ"].enumerated() {
            t.append(TrackInput(path: "jpop/\(i).mp3", title: title, artist: "さくら通り", genres: ["J-Pop"], year: 2015,
                                bpm: 140, lufs: -10, loudnessRange: 6))
        }
        for i in 0..<4 {
            t.append(TrackInput(path: "synth/\(i).flac", title: "Neon \(i)", artist: "Midnight Arcade", genres: ["Synthpop"],
                                year: 1985 + i, bpm: 118, lufs: -14, loudnessRange: 8))
        }
        for i in 0..<2 {
            t.append(TrackInput(path: "greek/\(i).flac", title: "Καλημέρα \(i)", artist: "Ορφέας", genres: ["Rock"],
                                bpm: 100, lufs: -12, loudnessRange: 7))
        }
        // Untagged: fast, bright and percussive; slow, dark and smooth. Tagged tracks sit in between.
        for i in 0..<8 {
            t.append(TrackInput(path: "untagged/fast\(i).mp3", title: "Track \(i)", bpm: 172 + Double(i % 3), lufs: -7 - Double(i % 2),
                                loudnessRange: 4, features: vector(bright: 2, percussive: 2, jitter: i)))
            t.append(TrackInput(path: "untagged/slow\(i).mp3", title: "Tune \(i)", bpm: 68 + Double(i % 3), lufs: -24 + Double(i % 2),
                                loudnessRange: 12, features: vector(bright: -2, percussive: -2, jitter: i)))
        }
        for i in t.indices where t[i].features == nil { t[i].features = vector(bright: 0, percussive: 0, jitter: i) }
        return t
    }

    /// A feature vector in `SonicFixture.names`' dimensions with the given brightness and percussiveness.
    func vector(bright: Float, percussive: Float, jitter: Int) -> [Float] {
        SonicFixture.names.enumerated().map { j, name in
            let wobble = Float((jitter * 7 + j * 3) % 5) * 0.05
            switch name {
            case "centroid_oct_mean", "rolloff_oct_mean": return bright + wobble
            case "onset_rate", "attack": return percussive + wobble
            default: return 0
            }
        }
    }

    func testRuleGenresAreFoundWithExplanations() throws {
        let out = GenreBuilder(taxonomy: taxonomy, rules: rules).build(library())
        let names = out.genres.map(\.name)
        let korean = try XCTUnwrap(out.genres.first { $0.name == "Korean Pop" }, "\(names)")
        XCTAssertEqual(korean.members.count, 5)
        XCTAssertEqual(korean.kind, .rule)
        let tagged = try XCTUnwrap(korean.members.first { $0.path == "kpop/1.mp3" })
        XCTAssertTrue(tagged.explanation.contains("LANGUAGE tag"), tagged.explanation)
        XCTAssertTrue(tagged.explanation.contains("GENRE 'K-Pop'"), tagged.explanation)
        let inferred = try XCTUnwrap(korean.members.first { $0.path == "kpop/0.mp3" })
        XCTAssertTrue(inferred.explanation.contains("inferred from the script"), inferred.explanation)
        XCTAssertTrue(inferred.explanation.contains("alias"), inferred.explanation)
        XCTAssertLessThan(inferred.score, tagged.score)
        XCTAssertNotNil(out.genres.first { $0.name == "Japanese Pop" && $0.members.count == 4 }, "\(names)")
        XCTAssertNotNil(out.genres.first { $0.name == "80s Synth-Pop" && $0.members.count == 4 }, "\(names)")
        XCTAssertNotNil(out.genres.first { $0.name == "2010s K-Pop" })
    }

    func testTwoTrackGroupIsDropped() {
        let out = GenreBuilder(taxonomy: taxonomy, rules: rules).build(library())
        XCTAssertNil(out.genres.first { $0.name == "Greek Rock" })
        XCTAssertTrue(out.dropped.contains { $0.name == "Greek Rock" && $0.reason.contains("only 2") }, "\(out.dropped)")
    }

    func testClusterRecoversTheUntaggedGroups() throws {
        let out = GenreBuilder(taxonomy: taxonomy, rules: rules).build(library(), featureNames: SonicFixture.names)
        let clusters = out.genres.filter { $0.kind == .cluster }
        XCTAssertFalse(clusters.isEmpty, "\(out.genres.map(\.name)) dropped: \(out.dropped)")
        let fast = Set((0..<8).map { "untagged/fast\($0).mp3" })
        let slow = Set((0..<8).map { "untagged/slow\($0).mp3" })
        let recovered = clusters.contains { c in
            let members = Set(c.members.map(\.path))
            return members.isSuperset(of: fast) && members.intersection(slow).isEmpty
                || members.isSuperset(of: slow) && members.intersection(fast).isEmpty
        }
        XCTAssertTrue(recovered, clusters.map { "\($0.name): \($0.members.map(\.path))" }.joined(separator: "\n"))
        for c in clusters {
            XCTAssertTrue(c.description.hasPrefix("cluster over timbre, rhythm and tonal dimensions: "), c.description)
            XCTAssertFalse(c.name.contains { $0.isNumber } && !c.name.contains("BPM"), "named from traits, not numbered: \(c.name)")
            for m in c.members { XCTAssertTrue(m.explanation.hasPrefix("cluster: ") && m.explanation.contains("this track")) }
        }
        XCTAssertEqual(Set(clusters.map(\.name)).count, clusters.count, "names are unique")
        // The fast group's shelf is named from what sets it apart, and each member says how it measures there.
        let fastShelf = try XCTUnwrap(clusters.first { Set($0.members.map(\.path)).isSuperset(of: fast) })
        XCTAssertTrue(fastShelf.name.contains("Bright") || fastShelf.name.contains("Percussive") || fastShelf.name.contains("BPM"),
                      fastShelf.name)
        let member = try XCTUnwrap(fastShelf.members.first { $0.path == "untagged/fast0.mp3" })
        XCTAssertTrue(member.explanation.contains("σ") && member.explanation.contains("BPM"), member.explanation)
        // Each member also names the genre whose centre it is next nearest to, and lies nearer its own.
        XCTAssertGreaterThan(clusters.count, 1)
        for c in clusters {
            for m in c.members {
                let numbers = try XCTUnwrap(m.explanation.range(of: #"; ([0-9.]+) from the centre \(members' mean [0-9.]+\), next nearest (.+) at ([0-9.]+)$"#,
                                                                options: .regularExpression), m.explanation)
                let tail = String(m.explanation[numbers])
                let named = clusters.map(\.name) + out.dropped.map(\.name)
                let other = try XCTUnwrap(named.first { $0 != c.name && tail.contains("next nearest \($0) at ") }, tail)
                let values = tail.split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }
                XCTAssertLessThanOrEqual(values.first!, values.last!, "\(m.path) in \(c.name), not \(other): \(tail)")
            }
        }
    }

    /// Two loose shelves and two far outliers: the plain mean silhouette prefers splitting the outliers off
    /// (24 + 2: everything looks cohesive beside them), which leaves no genre at all (one cluster too large,
    /// one too small). Only clusters that can be genres count when k is chosen.
    func testOutliersDoNotHideTheShelves() throws {
        // Each shelf spreads ±0.8 around its centre on brightness and percussiveness, 2 apart.
        func spread(_ i: Int, _ salt: Int) -> Float { Float((i * 5 + salt) % 9 - 4) * 0.2 }
        func track(_ path: String, bright: Float, percussive: Float) -> TrackInput {
            let values = SonicFixture.names.map { name -> Float in
                switch name {
                case "centroid_oct_mean", "rolloff_oct_mean": return bright
                case "onset_rate", "attack": return percussive
                default: return 0
                }
            }
            return TrackInput(path: path, title: path, bpm: 120, features: values)
        }
        var tracks: [TrackInput] = []
        for i in 0..<12 {
            tracks.append(track("a/\(i).flac", bright: 1 + spread(i, 0), percussive: 1 + spread(i, 4)))
            tracks.append(track("b/\(i).flac", bright: -1 + spread(i, 2), percussive: -1 + spread(i, 7)))
        }
        tracks.append(track("odd/0.flac", bright: 20, percussive: -20))
        tracks.append(track("odd/1.flac", bright: 21, percussive: -19))
        let out = GenreBuilder(taxonomy: taxonomy, rules: rules).build(tracks, featureNames: SonicFixture.names)
        let shelves = out.genres.filter { $0.kind == .cluster }.map { Set($0.members.map(\.path)) }
        let a = Set((0..<12).map { "a/\($0).flac" }), b = Set((0..<12).map { "b/\($0).flac" })
        // Shelves (one per side, or finer), none mixing the two sides, together holding both.
        XCTAssertGreaterThanOrEqual(shelves.count, 2, "dropped: \(out.dropped)")
        for shelf in shelves { XCTAssertTrue(shelf.isSubset(of: a) || shelf.isSubset(of: b), "\(shelf)") }
        XCTAssertEqual(shelves.reduce(Set<String>()) { $0.union($1) }, a.union(b), "\(shelves)")
    }

    func testEveryMembershipIsExplainedAndScored() {
        let out = GenreBuilder(taxonomy: taxonomy, rules: rules).build(library())
        for g in out.genres {
            XCTAssertGreaterThanOrEqual(g.members.count, 3)
            XCTAssertGreaterThanOrEqual(g.confidence, 0.5)
            for m in g.members {
                XCTAssertFalse(m.explanation.isEmpty)
                XCTAssertTrue(m.score > 0 && m.score <= 1)
            }
        }
    }

    func testBuildsAreDeterministic() {
        let builder = GenreBuilder(taxonomy: taxonomy, rules: rules)
        let a = builder.build(library(), featureNames: SonicFixture.names)
        let b = builder.build(library().reversed(), featureNames: SonicFixture.names)
        XCTAssertEqual(a.genres, b.genres)
        XCTAssertTrue(a.genres.contains { $0.kind == .cluster })
    }

    func testLanguageFromScriptAndTags() {
        XCTAssertEqual(Language.fromScript("사랑해"), "Korean")
        XCTAssertEqual(Language.fromScript("夜に駆ける"), "Japanese")
        XCTAssertEqual(Language.fromScript("月亮代表我的心"), "Chinese")
        XCTAssertEqual(Language.fromScript("Тихая река"), "Russian")
        XCTAssertEqual(Language.fromScript("Καλημέρα"), "Greek")
        XCTAssertEqual(Language.fromScript("שלום"), "Hebrew")
        XCTAssertEqual(Language.fromScript("สวัสดี"), "Thai")
        XCTAssertEqual(Language.fromScript("नमस्ते"), "Hindi")
        XCTAssertEqual(Language.fromScript("مرحبا"), "Arabic")
        XCTAssertNil(Language.fromScript("Hello"))
        XCTAssertEqual(Language.name(forTag: "kor"), "Korean")
        XCTAssertEqual(Language.name(forTag: "ja"), "Japanese")
        XCTAssertNil(Language.name(forTag: "zxx"))
    }

    /// iTunes' genres name two at once ("Hip-Hop/Rap", "R&B/Soul"), as do Discogs' and taggers that write
    /// several genres into one value: whole they are no genre, so such a track had none.
    /// A tempo rule counts a track whose tempo is unsure, and whose other reading breaks the rule, at
    /// `GenreBuilder.doubtfulTempoFactor` of its score, and says so.
    func testAnUncertainTempoCountsLessForATempoRule() {
        var rule = RuleSet.Rule(template: "Upbeat {genre}")
        rule.minBPM = 120
        let builder = GenreBuilder(taxonomy: taxonomy, rules: RuleSet(rules: [rule]))
        func member(confidence: Double, alternative: Double?) -> Membership? {
            let track = TrackInput(path: "rock.flac", genres: ["Rock"], bpm: 170, bpmConfidence: confidence,
                                   bpmAlternative: alternative)
            return builder.ruleGenres([TrackFeatures(track, taxonomy: taxonomy)]).first { $0.name == "Upbeat Rock" }?.members.first
        }
        let sure = member(confidence: 0.8, alternative: 85)
        XCTAssertEqual(sure?.explanation.hasSuffix("tempo 170 BPM from the analysis"), true, sure?.explanation ?? "")
        // Unsure, but both readings are upbeat: counted in full.
        XCTAssertEqual(member(confidence: 0.3, alternative: 127), sure)
        XCTAssertEqual(member(confidence: 0.3, alternative: nil), sure, "no other level to doubt it by")
        let unsure = member(confidence: 0.3, alternative: 85)
        XCTAssertTrue(unsure?.explanation.hasSuffix("tempo 170 BPM from the analysis, uncertain (confidence 0.30): it may be 85") == true,
                      unsure?.explanation ?? "")
        XCTAssertEqual(unsure?.score ?? 0, GenreBuilder.doubtfulTempoFactor * (sure?.score ?? 0), accuracy: 1e-9)
        XCTAssertLessThan(GenreBuilder.doubtfulTempoFactor, 1)
    }

    func testAGenreValueThatNamesTwoGenresCountsForBoth() {
        let taxonomy = Taxonomy(genres: self.taxonomy.genres + [.init(name: "R&B", family: "R&B", aliases: ["soul"])])
        XCTAssertEqual(taxonomy.genres(in: "Hip-Hop/Rap").map(\.name), ["Hip-Hop"])
        XCTAssertEqual(taxonomy.genres(in: "R&B/Soul").map(\.name), ["R&B"])
        XCTAssertEqual(taxonomy.genres(in: "Rock; K-Pop").map(\.name), ["Rock", "K-Pop"])
        XCTAssertEqual(taxonomy.genres(in: "Hip Hop").map(\.name), ["Hip-Hop"], "a whole name is not split")
        XCTAssertEqual(taxonomy.genres(in: "Rock & Hip Hop").map(\.name), ["Rock", "Hip-Hop"])
        XCTAssertEqual(taxonomy.genres(in: "Pop+R&B, Rap").map(\.name), ["Pop", "R&B", "Hip-Hop"])
        XCTAssertEqual(taxonomy.genres(in: "Polka/Yodel"), [])
        XCTAssertNil(taxonomy.respelled("Hip-Hop/Rap"), "tags fix genre-aliases leaves a value of two names as it is")
        let features = TrackFeatures(TrackInput(path: "a.m4a", genres: ["Hip-Hop/Rap", "Rock/Pop"]), taxonomy: taxonomy)
        XCTAssertEqual(features.genres.map(\.value), ["Hip-Hop", "Rock", "Pop"])
        XCTAssertEqual(features.families.map(\.value), ["Hip-Hop", "Rock", "Pop"])
        XCTAssertEqual(features.genres.first?.source, "genre Hip-Hop from GENRE 'Hip-Hop/Rap' (a part of it)")
    }

    /// The taxonomy that comes with Spindle knows the genres stores and taggers write (ID3v1's list, iTunes',
    /// Gracenote's): a genre it does not know gives a track no genre and no family at all.
    func testTheShippedTaxonomyKnowsTheGenresStoresWrite() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("data/genre-taxonomy.toml")
        let shipped = try TaxonomyFile.parse(try String(contentsOf: file, encoding: .utf8))
        let expected: [(String, [String])] = [
            ("Hip-Hop/Rap", ["Hip-Hop"]), ("R&B/Soul", ["R&B"]), ("Alternative & Punk", ["Alternative", "Punk"]),
            ("Electronica/Dance", ["Electronic", "Dance"]), ("Jazz+Funk", ["Jazz", "Funk"]), ("Funk", ["Funk"]),
            ("Disco", ["Disco"]), ("Gospel", ["Gospel"]), ("New Age", ["New Age"]), ("Easy Listening", ["Easy Listening"]),
            ("Christmas", ["Holiday"]), ("Children's Music", ["Children's Music"]), ("Comedy", ["Spoken Word"]),
            ("Singer/Songwriter", ["Folk"]), ("Trip-Hop", ["Trip-Hop"]), ("Grunge", ["Alternative"]),
            ("Drum & Bass", ["Drum and Bass"]), ("Folk, World, & Country", ["Folk", "World", "Country"]),
            // AllMusic's genres, as taggers fetch them.
            ("Pop/Rock", ["Pop", "Rock"]), ("Stage & Screen", ["Soundtrack"]), ("Comedy/Spoken", ["Spoken Word"]),
            ("Religious", ["Gospel"]), ("International", ["World"]),
        ]
        for (value, names) in expected {
            XCTAssertEqual(shipped.genres(in: value).map(\.name), names, value)
        }
    }

    func testATaxonomyThatGivesOneSpellingToTwoGenresIsRefused() {
        let text = "[[genre]]\nname = \"Rock\"\naliases = [\"indie\"]\n[[genre]]\nname = \"Alternative\"\naliases = [\"Indie\"]\n"
        XCTAssertThrowsError(try TaxonomyFile.parse(text)) { error in
            XCTAssertTrue("\(error)".contains("'Indie' names both Rock and Alternative"), "\(error)")
        }
    }

    func testTaxonomyAliasesAndRuleFileParsing() throws {
        XCTAssertEqual(taxonomy.canonical("Hip Hop")?.name, "Hip-Hop")
        XCTAssertEqual(taxonomy.canonical("RAP")?.name, "Hip-Hop")
        XCTAssertEqual(taxonomy.canonical("k-pop")?.name, "K-Pop")
        let set = try RuleSet.parse("""
            min_size = 4
            [[rule]]
            template = "Upbeat {genre}"
            min_bpm = 120
            min_energy = 0.5
            """)
        XCTAssertEqual(set.minSize, 4)
        XCTAssertEqual(set.rules.first?.minBPM, 120)
        XCTAssertThrowsError(try RuleSet.parse("[[rule]]\ntemplate = \"{mood} Pop\"\n"))
        let parsed = try TaxonomyFile.parse("[[genre]]\nname = \"Rock\"\nfamily = \"Rock\"\naliases = [\"classic rock\"]\n")
        XCTAssertEqual(parsed.canonical("Classic Rock")?.name, "Rock")
    }
}
