@testable import Pipeline
import Tagging
import XCTest

/// Edits files as spreadsheets and scripts write them.
final class TagEditSourcesTests: XCTestCase {
    func edits(_ text: String, json: Bool = false) throws -> [String: TagEdit] {
        let list = json ? try TagEditSources.json(text, source: "edits.json") : try TagEditSources.csv(text, source: "edits.csv")
        return Dictionary(uniqueKeysWithValues: list)
    }

    // A number in JSON ("value": 128) fell through to "no value" and removed the key it was meant to set.
    func testJSONNumbersAreValuesNotRemovals() throws {
        let e = try edits(#"[{"path": "a.flac", "key": "BPM", "value": 128}, {"path": "b.flac", "set": {"DISCNUMBER": 2, "GENRE": ["Rock", "Pop"]}}]"#,
                          json: true)
        XCTAssertEqual(e["a.flac"], TagEdit(set: ["BPM": ["128"]]))
        XCTAssertEqual(e["b.flac"], TagEdit(set: ["DISCNUMBER": ["2"], "GENRE": ["Rock", "Pop"]]))
        XCTAssertEqual(try edits(#"[{"path": "a.flac", "key": "BPM", "value": ""}]"#, json: true)["a.flac"], TagEdit(unset: ["BPM"]))
        XCTAssertThrowsError(try edits(#"[{"path": "a.flac", "key": "BPM", "value": {"x": 1}}]"#, json: true))
        XCTAssertThrowsError(try edits(#"[{"path": "a.flac", "key": "GENRE", "value": ["Rock", ["Pop"]]}]"#, json: true))
        XCTAssertEqual(try edits(#"[{"path": "a.flac", "key": "GENRE", "value": ["Rock", "", 1]}]"#, json: true)["a.flac"],
                       TagEdit(set: ["GENRE": ["Rock", "1"]]))
    }

    // Spreadsheets in locales with a decimal comma save CSV with semicolons (or tabs): every row had been
    // refused as "needs 3 columns".
    // Attack review, low 15: read as Characters, a 50 MB CSV value took 13 s and 1 GB. Read as bytes, the rows
    // are the same: quotes, doubled quotes, delimiters and line ends inside quotes, CRLF, a BOM, non-ASCII.
    func testCSVIsReadAsBytesWithTheSameRows() {
        let text = "\u{feff}path,key,value\r\nA/é.flac,TITLE,\"a, \"\"b\"\"\nc\"\rB.flac;x,GENRE,日本\n,,\n"
        XCTAssertEqual(TagEditSources.parseCSV(text), [["path", "key", "value"], ["A/é.flac", "TITLE", "a, \"b\"\nc"],
                                                        ["B.flac;x", "GENRE", "日本"], ["", "", ""]])
        XCTAssertEqual(TagEditSources.parseCSV("a\tb\tc", delimiter: "\t"), [["a", "b", "c"]])
    }

    func testSemicolonAndTabSeparatedRows() throws {
        for d in [";", "\t"] {
            let e = try edits("path\(d)key\(d)value\r\nA/1.flac\(d)title\(d)\"Tom; Jerry\"\r\nA/1.flac\(d)COMMENT\(d)\r\n")
            XCTAssertEqual(e["A/1.flac"], TagEdit(set: ["TITLE": ["Tom; Jerry"]], unset: ["COMMENT"]), d)
        }
        XCTAssertEqual(try edits("A/1.flac,TITLE,\"One; Two\"\n")["A/1.flac"], TagEdit(set: ["TITLE": ["One; Two"]]))
    }

    // "YEAR" and "TRACK" were refused with no hint that TagLib calls them DATE and TRACKNUMBER.
    func testUnknownKeysNameTheirTagLibNames() {
        XCTAssertEqual(TagBatch.unknownKeys(["YEAR", "MYKEY"]),
                       "unknown key(s) MYKEY, YEAR (TagLib's name: DATE) (use --allow-custom to write them as they are)")
        for (key, name) in TagBatch.knownKeyFor {
            XCTAssertFalse(TagBatch.knownKeys.contains(key), key)
            XCTAssertTrue(TagBatch.knownKeys.contains(name), name)
        }
    }
}
