import Analysis
import Foundation
import GRDB
import Store
import Tagging

/// `tags write-analysis`: analysis results as the tags players already read, in rsgain/loudgain's
/// conventions. BPM rounded; ReplayGain 2.0 (reference −18 LUFS, "-6.50 dB", peaks linear) for track and
/// album, the album measured over all its tracks' gating blocks together (not an average of track values);
/// Opus gets R128_TRACK_GAIN / R128_ALBUM_GAIN in Q7.8 relative to −23 LUFS (RFC 7845) instead. The key goes
/// to INITIALKEY ("Am", "C#", "Ebm": ID3 TKEY, MP4 freeform `initialkey`, WMA WM/InitialKey), and in formats
/// whose tags are free-form fields (Vorbis comments, APEv2) to KEY as well: the name Picard writes there and
/// Navidrome reads (its smart playlists filter on it), where INITIALKEY is Mixxx's and beets' name.
public enum AnalysisTags {
    /// The command journaled with each batch it writes: how a later run knows a tag is its own.
    public static let command = "tags write-analysis"

    /// Which results to write.
    public struct Fields: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let bpm = Fields(rawValue: 1)
        public static let replayGain = Fields(rawValue: 2)
        public static let key = Fields(rawValue: 4)
        /// MOOD from the tagger's mood words: asked for by name only, never part of `all`.
        public static let mood = Fields(rawValue: 8)
        public static let all: Fields = [.bpm, .replayGain, .key]
    }

    /// Tracks of one album: same folder, album title and album artist when tagged; a track without one belongs
    /// to the album its folder holds under that title when there is only one (`joiningTheirFolder`: a bonus
    /// track tagged apart). Not the track artist: a guest ("A feat. B") or a compilation's many artists had split
    /// one album into several, each with its own album gain. Nor the disc: a disc's own folder ("CD1", "Disc 2 -
    /// Live") counts as the album's, and albums that share a MusicBrainz release are one (`joinedByRelease`), so
    /// a double album has one album gain, not a level jump between its discs. Fields, not a joined string, so a
    /// track at the library root names its album correctly.
    struct AlbumKey: Hashable, Comparable {
        var folder: String
        var album: String
        var albumArtist: String

        init(folder: String, album: String, albumArtist: String) {
            self.folder = folder
            self.album = album
            self.albumArtist = albumArtist
        }

        init(path: String, album: String, albumArtist: String?) {
            let folder = (path as NSString).deletingLastPathComponent
            self.init(folder: Self.isDiscFolder((folder as NSString).lastPathComponent)
                        ? (folder as NSString).deletingLastPathComponent : folder,
                      album: album, albumArtist: albumArtist ?? "")
        }

        /// "CD1", "CD 2", "Disc 3", "disk_4", "DVD1", "Disc 2 - Live": a word for a disc, then its number.
        static func isDiscFolder(_ name: String) -> Bool {
            let lower = name.lowercased()
            guard let word = ["disc", "disk", "cd", "dvd"].first(where: { lower.hasPrefix($0) }) else { return false }
            let rest = lower.dropFirst(word.count).drop { " ._-".contains($0) }
            return rest.first?.isASCII == true && rest.first?.isNumber == true
        }

        static func < (a: AlbumKey, b: AlbumKey) -> Bool { (a.folder, a.album, a.albumArtist) < (b.folder, b.album, b.albumArtist) }

        /// Keys without an album artist mapped to the one key of their folder and title that has one (left out
        /// when there are several: which album a track of no album artist belongs to is then unknown).
        static func joiningTheirFolder(_ keys: [AlbumKey]) -> [AlbumKey: AlbumKey] {
            var tagged: [AlbumKey: Set<String>] = [:]
            for key in keys where !key.albumArtist.isEmpty {
                tagged[AlbumKey(folder: key.folder, album: key.album, albumArtist: ""), default: []].insert(key.albumArtist)
            }
            return tagged.reduce(into: [:]) { joined, entry in
                guard entry.value.count == 1, let artist = entry.value.first else { return }
                joined[entry.key] = AlbumKey(folder: entry.key.folder, album: entry.key.album, albumArtist: artist)
            }
        }

        /// Each album key → the least key of those joined to it through a shared MusicBrainz release id (itself
        /// when none is): one release in several folders is one album, and so are a release's tracks and
        /// untagged bonus tracks beside them in one folder.
        static func joinedByRelease(_ pairs: [(key: AlbumKey, release: String?)]) -> [AlbumKey: AlbumKey] {
            var parent: [AlbumKey: AlbumKey] = [:]
            func root(_ key: AlbumKey) -> AlbumKey {
                var k = key
                while let p = parent[k], p != k { k = p }
                return k
            }
            var firstOfRelease: [String: AlbumKey] = [:]
            for (key, release) in pairs {
                if parent[key] == nil { parent[key] = key }
                guard let release, !release.isEmpty else { continue }
                guard let other = firstOfRelease[release] else { firstOfRelease[release] = key; continue }
                let (a, b) = (root(key), root(other))
                if a != b { parent[max(a, b)] = min(a, b) }
            }
            return parent.keys.reduce(into: [:]) { $0[$1] = root($1) }
        }
    }

    struct Track {
        var fileId: Int64
        var path: String
        var codec: String?
        var bpm: Double?
        var bpmConfidence: Double?
        var key: MusicalKey?
        var lufs: Double?
        var truePeakDB: Double?
        var tagProbabilities: [Float]?
        var album: AlbumKey?
        /// Tags an earlier `write-analysis` wrote that the analysis no longer supports (`withdrawn`).
        var withdrawn: [String] = []
        /// Whether the results are of the file's present content, whole (`AnalysisQueries.ForTags.current`,
        /// not `partial`).
        var current = true
    }

    /// A tempo whose confidence is under `minBPMConfidence` is left out: Navidrome's smart playlists read the
    /// BPM tag as a fact, and a tempo under `TempoResult.trusted` may be another metrical level.
    ///
    /// Only results of the content a file holds are written: a file changed since it was analysed (another
    /// recording copied over it, as a re-rip or a better download is) keeps its tags until `analyze` has run,
    /// and its results count in no album. `analysedContent` is each edit's file as analysed, for the batch to
    /// refuse a file that changed between this and its writing.
    static func edits(paths: [String]?, fields: Fields, minBPMConfidence: Double = 0, minMoodProbability: Double = 0.1,
                      database: SpindleDatabase,
                      rootPath: String) throws -> (edits: [(String, TagEdit)], notes: [String], analysedContent: [String: String]) {
        let replayGain = fields.contains(.replayGain)
        // Gating blocks are fetched per album below, not for the whole library at once (tens of KB a track).
        let (rows, lastWrites) = try database.writer.read { db in
            (try AnalysisQueries.forTags(db, rootPath: rootPath),
             try Dictionary(uniqueKeysWithValues: AnalysisQueries.withdrawableTags.map { ($0, try TagBatchQueries.lastWritten(db, key: $0)) }))
        }
        let tagged = rows.map { row in row.album.map { AlbumKey(path: row.path, album: $0, albumArtist: row.albumArtist) } }
        let folderAlbums = AlbumKey.joiningTheirFolder(tagged.compactMap { $0 })
        let keys = tagged.map { key in key.map { folderAlbums[$0] ?? $0 } }
        let joined = AlbumKey.joinedByRelease(zip(keys, rows).compactMap { key, row in key.map { ($0, row.musicbrainzAlbumId) } })
        let tracks = zip(rows, keys).map { row, key -> Track in
            Track(fileId: row.fileId, path: row.path, codec: row.codec, bpm: row.bpm, bpmConfidence: row.bpmConfidence,
                  key: row.key.flatMap(MusicalKey.init(name:)), lufs: row.lufs, truePeakDB: row.truePeakDB,
                  tagProbabilities: row.tagProbabilities.flatMap(FloatBlob.decode), album: key.flatMap { joined[$0] }, withdrawn: Self.withdrawn(row, lastWrites: lastWrites),
                  current: row.writable)
        }
        var notes: [String] = []
        let albums = replayGain ? try albumLoudness(tracks, database: database, notes: &notes) : [:]
        let wanted = paths.map(Set.init)
        let left = rows.filter { !$0.writable && wanted?.contains($0.path) ?? true }
        func example(_ paths: [String]) -> String { paths.first.map { " (\($0)\(paths.count > 1 ? ", ..." : ""))" } ?? "" }
        let changed = left.filter { !$0.current }.map(\.path), partial = left.filter { $0.current }.map(\.path)
        if !changed.isEmpty {
            notes.append("\(changed.count) file(s) changed since they were analysed\(example(changed)): "
                         + "their tags, and their albums' album gain, wait until `spindle analyze` has analysed them again")
        }
        // A file cut short, or one still being copied when it was analysed: its results are of a part, and a tag
        // write replacing a file a copier still writes to would lose the rest of the copy.
        if !partial.isEmpty {
            notes.append("\(partial.count) file(s) analysed in part only\(example(partial)): cut short, or still being copied "
                         + "then (`spindle status` lists them); their tags, and their albums' album gain, are left as they are")
        }
        var edits: [(String, TagEdit)] = []
        var unsure = 0, withdrawn = 0, untagged = 0
        for t in tracks where t.current && wanted?.contains(t.path) ?? true {
            let edit = Self.edit(for: t, fields: fields, minBPMConfidence: minBPMConfidence, minMoodProbability: minMoodProbability,
                                 albums: albums, unsure: &unsure, untagged: &untagged)
            if !edit.unset.isEmpty { withdrawn += 1 }
            if !edit.isEmpty { edits.append((t.path, edit)) }
        }
        if withdrawn > 0 {
            notes.append("\(withdrawn) file(s) lose a BPM or key tag an earlier write-analysis gave them: no tempo or key is found in them now")
        }
        if untagged > 0 {
            notes.append("\(untagged) file(s) get no MOOD: the tagger has not run on them (\(TaggerModel.howToEnable), then `spindle analyze`)")
        }
        if unsure > 0 {
            notes.append(String(format: "%d file(s) keep their BPM tag: tempo confidence under %.2f", unsure, minBPMConfidence))
        }
        if let wanted {
            let analysed = Set(rows.map(\.path))
            for p in wanted.sorted() where !analysed.contains(p) { notes.append("\(p): not analysed yet; run `spindle analyze`") }
        }
        let analysedContent = Dictionary(uniqueKeysWithValues: rows.compactMap { row in
            row.current ? row.analysedContent.map { (row.path, $0) } : nil
        })
        return (edits, notes, analysedContent)
    }

    /// Album loudness and peak over every track of the album in the library; nil for an album whose tracks are
    /// not all analysed as they are, or lack gating blocks (said in `notes`).
    private static func albumLoudness(_ tracks: [Track], database: SpindleDatabase,
                                      notes: inout [String]) throws -> [AlbumKey: (lufs: Double, peak: Double)?] {
        var albums: [AlbumKey: (lufs: Double, peak: Double)?] = [:]
        var grouped: [AlbumKey: [Track]] = [:]
        for t in tracks { if let k = t.album { grouped[k, default: []].append(t) } }
        for key in grouped.keys.sorted() {
            let members = grouped[key]!
            // The album's loudness is its tracks' as they are: one track's results of other content would skew
            // every track's album gain, and without that track it is another album's loudness.
            guard members.allSatisfy(\.current) else { albums[key] = .some(nil); continue }
            var histogram = LoudnessHistogram()
            var complete = true
            for m in members {
                let blocks = try database.writer.read { db in try AnalysisQueries.loudnessBlocks(db, fileId: m.fileId) }
                guard let b = blocks, histogram.merge(encoded: [UInt8](b)) else { complete = false; break }
            }
            if complete, let lufs = histogram.integrated() {
                let peak = members.compactMap { $0.truePeakDB }.map { pow(10, $0 / 20) }.max() ?? 0
                albums[key] = (lufs, peak)
            } else {
                albums[key] = .some(nil)
                if !complete { notes.append("album \(key.album): some tracks lack gating blocks; re-analyse (`analyze --force`) for album gain") }
            }
        }
        return albums
    }

    /// One track's edit: its BPM (when sure enough; else counted in `unsure`), key, ReplayGain and mood words
    /// (a track the tagger has not run on is counted in `untagged`), and the tags an earlier write gave it
    /// that no result backs now.
    private static func edit(for t: Track, fields: Fields, minBPMConfidence: Double, minMoodProbability: Double,
                             albums: [AlbumKey: (lufs: Double, peak: Double)?], unsure: inout Int, untagged: inout Int) -> TagEdit {
        var edit = TagEdit()
        edit.unset = t.withdrawn.filter { fields.contains($0 == "BPM" ? .bpm : .key) }
        if fields.contains(.bpm), let b = t.bpm {
            if (t.bpmConfidence ?? 0) >= minBPMConfidence {
                edit.set["BPM"] = [String(Int(b.rounded()))]
            } else {
                unsure += 1
            }
        }
        if fields.contains(.key), let k = t.key {
            edit.set["INITIALKEY"] = [k.tagValue]
            if Self.freeFormTags.contains((t.path as NSString).pathExtension.lowercased()) { edit.set["KEY"] = [k.tagValue] }
        }
        if fields.contains(.mood) {
            if let probabilities = t.tagProbabilities, probabilities.count == MusicnnTags.names.count {
                let moods = Self.moods(probabilities, minimum: minMoodProbability)
                if !moods.isEmpty { edit.set["MOOD"] = moods }
            } else {
                untagged += 1
            }
        }
        if fields.contains(.replayGain), let lufs = t.lufs {
            let isOpus = t.codec == "opus"
            let album = t.album.flatMap { albums[$0] ?? nil }
            if isOpus {
                edit.set["R128_TRACK_GAIN"] = [q78(-23 - lufs)]
                if let album { edit.set["R128_ALBUM_GAIN"] = [q78(-23 - album.lufs)] }
            } else {
                edit.set["REPLAYGAIN_TRACK_GAIN"] = [String(format: "%.2f dB", -18 - lufs)]
                edit.set["REPLAYGAIN_TRACK_PEAK"] = [String(format: "%.6f", pow(10, (t.truePeakDB ?? -120) / 20))]
                if let album {
                    edit.set["REPLAYGAIN_ALBUM_GAIN"] = [String(format: "%.2f dB", -18 - album.lufs)]
                    edit.set["REPLAYGAIN_ALBUM_PEAK"] = [String(format: "%.6f", album.peak)]
                }
            }
        }
        return edit
    }

    /// The plans whose file, as planned, is the content its results are of; the others are refused. A file
    /// replaced after the command's scan, while a large batch was being planned, has other content than its
    /// analysis describes.
    static func ofAnalysedContent(_ plans: [FilePlan], _ analysedContent: [String: String])
        -> (plans: [FilePlan], refusals: [TagBatch.Refusal]) {
        var kept: [FilePlan] = [], refusals: [TagBatch.Refusal] = []
        for plan in plans {
            if let key = plan.expected?.contentKey, key == analysedContent[plan.path] {
                kept.append(plan)
            } else {
                refusals.append(TagBatch.Refusal(input: plan.path, reason: "it changed since it was analysed: run `spindle analyze`, then write again"))
            }
        }
        return (kept, refusals)
    }

    /// The tags of a track that go: its BPM when the tempo analyzer now finds no tempo (a steady sound, which
    /// tempo version 12 read as one), its key tags when the features analyzer finds no key (a drone, which
    /// features version 2 read as the key a fifth below), each only while it still holds what `write-analysis`
    /// last wrote there. A value the user set, with Spindle or another tagger, stays.
    static func withdrawn(_ row: AnalysisQueries.ForTags, lastWrites: [String: [Int64: (newValues: String?, command: String)]]) -> [String] {
        AnalysisQueries.withdrawableTags.filter { name in
            let unsupported = name == "BPM" ? row.tempoMeasured && row.bpm == nil : row.keyMeasured && row.key == nil
            guard unsupported, let tagged = row.tagged[name], let last = lastWrites[name]?[row.fileId] else { return false }
            return last.command == command && TagBatch.values(last.newValues) == [tagged]
        }
    }

    /// The mood words among a track's tags at `minimum` or more, most probable first, related ones once (the
    /// more probable of "chill" and "chillout"): what MOOD holds, Navidrome's mood field. GENRE is never touched.
    static func moods(_ probabilities: [Float], minimum: Double) -> [String] {
        let ranked = MusicnnTags.names.indices
            .filter { MusicnnTags.moods.contains(MusicnnTags.names[$0]) && Double(probabilities[$0]) >= minimum }
            .sorted { (probabilities[$0], $1) > (probabilities[$1], $0) }
        return MusicnnTags.distinct(ranked, count: 3).map(MusicnnTags.title)
    }

    /// Extensions of the formats TagLib tags with Vorbis comments (FLAC, Ogg) or APEv2 (WavPack, Monkey's Audio,
    /// Musepack): there a field is any name, and "KEY" is a field of its own.
    static let freeFormTags: Set<String> = ["flac", "ogg", "oga", "opus", "spx", "wv", "ape", "mpc", "mpp"]

    /// Q7.8 fixed point (a signed 16-bit count of 1/256 dB), as Opus's R128 tags are written.
    static func q78(_ db: Double) -> String { String(Int(max(-32768, min(32767, (db * 256).rounded())))) }
}
