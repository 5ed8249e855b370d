import Analysis
import Foundation
import GRDB
import Store
import Tagging

/// `tags write-analysis`: analysis results as the tags players already read, in rsgain/loudgain's
/// conventions. BPM rounded; ReplayGain 2.0 (reference −18 LUFS, "-6.50 dB", peaks linear) for track and
/// album, the album measured over all its tracks' gating blocks together (not an average of track values);
/// Opus gets R128_TRACK_GAIN / R128_ALBUM_GAIN in Q7.8 relative to −23 LUFS (RFC 7845) instead.
public enum AnalysisTags {
    struct Track {
        var fileId: Int64
        var path: String
        var codec: String?
        var bpm: Double?
        var lufs: Double?
        var truePeakDB: Double?
        var albumKey: String?
    }

    static func edits(paths: [String]?, bpm: Bool, replayGain: Bool, database: SpindleDatabase,
                      rootPath: String) throws -> (edits: [(String, TagEdit)], notes: [String]) {
        // Gating blocks are fetched per album below, not for the whole library at once (tens of KB a track).
        let tracks = try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT f.id, f.path, a.codec, a.bpm, a.lufs_integrated, a.true_peak_dbtp,
                       t.album, COALESCE(t.album_artist, t.artist)
                FROM files f JOIN library_roots r ON r.id = f.root_id
                JOIN analysis a ON a.file_id = f.id AND a.status = 'ok' LEFT JOIN tracks t ON t.file_id = f.id
                WHERE r.path = ? AND f.status = 'present' ORDER BY f.path
                """, arguments: [rootPath]).map { row -> Track in
                let path: String = row[1]
                let album: String? = row[6]
                let key = album.map { (path as NSString).deletingLastPathComponent + "\u{0}" + $0 + "\u{0}" + ((row[7] as String?) ?? "") }
                return Track(fileId: row[0], path: path, codec: row[2], bpm: row[3], lufs: row[4], truePeakDB: row[5], albumKey: key)
            }
        }
        var notes: [String] = []
        // Album loudness and peak over every track of the album in the library.
        var albums: [String: (gain: Double, peak: Double)?] = [:]
        if replayGain {
            var grouped: [String: [Track]] = [:]
            for t in tracks { if let k = t.albumKey { grouped[k, default: []].append(t) } }
            for key in grouped.keys.sorted() {
                let members = grouped[key]!
                var histogram = LoudnessHistogram()
                var complete = true
                for m in members {
                    let blocks = try database.writer.read { db in
                        try Data.fetchOne(db, sql: "SELECT loudness_blocks FROM analysis WHERE file_id = ?", arguments: [m.fileId])
                    }
                    guard let b = blocks, histogram.merge(encoded: [UInt8](b)) else { complete = false; break }
                }
                if complete, let lufs = histogram.integrated() {
                    let peak = members.compactMap { $0.truePeakDB }.map { pow(10, $0 / 20) }.max() ?? 0
                    albums[key] = (lufs, peak)
                } else {
                    albums[key] = .some(nil)
                    if !complete { notes.append("album \(key.split(separator: "\u{0}")[1]): some tracks lack gating blocks; re-analyse (`analyze --force`) for album gain") }
                }
            }
        }
        let wanted = paths.map(Set.init)
        var edits: [(String, TagEdit)] = []
        for t in tracks where wanted?.contains(t.path) ?? true {
            var edit = TagEdit()
            if bpm, let b = t.bpm { edit.set["BPM"] = [String(Int(b.rounded()))] }
            if replayGain, let lufs = t.lufs {
                let isOpus = t.codec == "opus"
                let album = t.albumKey.flatMap { albums[$0] ?? nil }
                if isOpus {
                    edit.set["R128_TRACK_GAIN"] = [q78(-23 - lufs)]
                    if let album { edit.set["R128_ALBUM_GAIN"] = [q78(-23 - album.gain)] }
                } else {
                    edit.set["REPLAYGAIN_TRACK_GAIN"] = [String(format: "%.2f dB", -18 - lufs)]
                    edit.set["REPLAYGAIN_TRACK_PEAK"] = [String(format: "%.6f", pow(10, (t.truePeakDB ?? -120) / 20))]
                    if let album {
                        edit.set["REPLAYGAIN_ALBUM_GAIN"] = [String(format: "%.2f dB", -18 - album.gain)]
                        edit.set["REPLAYGAIN_ALBUM_PEAK"] = [String(format: "%.6f", album.peak)]
                    }
                }
            }
            if !edit.isEmpty { edits.append((t.path, edit)) }
        }
        if let wanted {
            let analysed = Set(tracks.map(\.path))
            for p in wanted.sorted() where !analysed.contains(p) { notes.append("\(p): not analysed yet; run `spindle analyze`") }
        }
        return (edits, notes)
    }

    /// Q7.8 fixed point (a signed 16-bit count of 1/256 dB), as Opus's R128 tags are written.
    static func q78(_ db: Double) -> String { String(Int(max(-32768, min(32767, (db * 256).rounded())))) }
}
