import CFFmpeg
import Foundation

/// Tags of the formats TagLib 1.13 has no reader for (DSF and DSDIFF, Matroska and WebM audio, AC-3), read
/// from FFmpeg's container metadata: a DSF file's ID3v2 chunk, Matroska's tags. FFmpeg gives generic keys
/// ("album_artist", "track") or the frame's own ("TBPM", a TXXX description); they are mapped to TagLib's
/// property names, so the `tracks` row reads alike whichever library read the file. Read-only: writes to
/// these formats stay refused, as TagLib cannot make them.
enum ContainerTagReader {
    /// FFmpeg's names (upper-cased) whose TagLib property name differs.
    static let propertyNames: [String: String] = [
        "ALBUM_ARTIST": "ALBUMARTIST", "ALBUM-ARTIST": "ALBUMARTIST", "TRACK": "TRACKNUMBER", "DISC": "DISCNUMBER",
        "TBPM": "BPM", "TKEY": "INITIALKEY", "TSRC": "ISRC", "ENCODED_BY": "ENCODEDBY",
        "ALBUM-SORT": "ALBUMSORT", "ARTIST-SORT": "ARTISTSORT", "TITLE-SORT": "TITLESORT",
        "TDOR": "ORIGINALDATE", "TORY": "ORIGINALDATE", "TIT1": "GROUPING",
    ]

    /// Matroska's per-track statistics (written by muxers, not by anyone tagging music).
    static let statistics: Set<String> = [
        "DURATION", "NUMBER_OF_FRAMES", "NUMBER_OF_BYTES", "BPS", "_STATISTICS_WRITING_APP",
        "_STATISTICS_WRITING_DATE_UTC", "_STATISTICS_TAGS",
    ]

    /// Nil when FFmpeg cannot open the file or finds no audio stream in it.
    static func read(path: String) -> TagSnapshot? {
        av_log_set_level(AV_LOG_QUIET)
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        guard avformat_open_input(&context, path, nil, nil) == 0, let ctx = context else { return nil }
        defer { avformat_close_input(&context) }
        // The length and any parameters a header leaves out (DSF states neither where FFmpeg sets them
        // without this) need a look at the first packets.
        _ = avformat_find_stream_info(ctx, nil)
        let index = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let stream = ctx.pointee.streams[Int(index)] else { return nil }
        var properties: [String: [String]] = [:]
        // The file's tags first; a stream's (Matroska tags aimed at the track) fill in what the file lacks.
        for dictionary in [ctx.pointee.metadata, stream.pointee.metadata] {
            var fromThis: [String: [String]] = [:]
            var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
            while let e = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
                entry = e
                let key = String(cString: e.pointee.key).uppercased()
                let value = String(cString: e.pointee.value)
                guard !key.isEmpty, !value.isEmpty, !statistics.contains(key) else { continue }
                fromThis[propertyNames[key] ?? key, default: []].append(value)
            }
            for (key, values) in fromThis where properties[key] == nil { properties[key] = values }
        }
        let parameters = stream.pointee.codecpar.pointee
        func positive(_ v: Int64) -> Int? { v > 0 && v < Int64(Int32.max) ? Int(v) : nil }
        var seconds: Double? = nil
        if ctx.pointee.duration != SPN_AV_NOPTS_VALUE, ctx.pointee.duration > 0 {
            seconds = Double(ctx.pointee.duration) / Double(AV_TIME_BASE)
        }
        return TagSnapshot(properties: properties, codec: String(cString: avcodec_get_name(parameters.codec_id)),
                           durationSeconds: seconds, bitrateKbps: positive(parameters.bit_rate / 1000),
                           sampleRate: positive(Int64(parameters.sample_rate)),
                           channels: positive(Int64(parameters.ch_layout.nb_channels)),
                           bitDepth: positive(Int64(parameters.bits_per_raw_sample)), writable: false)
    }
}
