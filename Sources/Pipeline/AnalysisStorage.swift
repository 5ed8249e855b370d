import Analysis
import Foundation
import GRDB
import Store

/// Turns an outcome into the `analysis` row and `vis_frames` blob, merging into an existing row when only
/// some analyzers ran (`--only`).
enum AnalysisStorage {
    /// A worker died or hung on the file. The first time, the row stays stale so the next run retries
    /// (the crash may have been the machine's, an OOM kill); from the second time it is marked current
    /// and left alone until the file changes or `--force`.
    static func storeCrash(_ reason: String, fileId: Int64, contentKey: String?, in db: Database) throws {
        var record = try AnalysisRecord.fetchOne(db, key: fileId)
            ?? AnalysisRecord(fileId: fileId, contentKey: nil, analyzerVersion: AnalysisOptions.analyzerVersion, status: "error")
        record.crashes += 1
        record.status = "error"
        record.error = reason
        record.analyzedAt = Date()
        record.analyzerVersion = AnalysisOptions.analyzerVersion
        record.contentKey = record.crashes >= 2 ? contentKey : nil
        try record.upsert(db)
    }

    static func store(_ outcome: FileAnalysisOutcome, fileId: Int64, contentKey: String?,
                      options: AnalysisOptions, in db: Database) throws {
        let fullRun = options.enabled == Set(AnalysisOptions.Kind.allCases)
        var record = try AnalysisRecord.fetchOne(db, key: fileId)
            ?? AnalysisRecord(fileId: fileId, contentKey: nil, analyzerVersion: AnalysisOptions.analyzerVersion, status: "ok")
        if fullRun || record.contentKey == contentKey {
            record.contentKey = contentKey
            record.analyzerVersion = AnalysisOptions.analyzerVersion
        }
        record.analyzedAt = Date()
        record.seconds = outcome.seconds
        record.crashes = 0
        if let error = outcome.error {
            record.status = "error"
            record.error = error
            record.damage = nil
            record.codec = outcome.format?.codec
            try record.upsert(db)
            return
        }
        record.status = "ok"
        record.error = nil
        record.damage = outcome.damage
        record.codec = outcome.format?.codec
        record.durationS = outcome.durationSeconds
        record.sampleRate = outcome.format?.sampleRate
        record.channels = outcome.format?.channels
        let on = options.enabled
        let a = outcome.analysis
        if on.contains(.tempo) {
            record.bpm = a?.tempo?.bpm
            record.bpmConfidence = a?.tempo?.confidence
            record.firstBeatS = a?.tempo?.firstBeat
        }
        if on.contains(.loudness) {
            let l = a?.loudness
            record.lufsIntegrated = l?.integratedLUFS
            record.loudnessRangeLu = l?.rangeLU
            record.truePeakDbtp = l?.truePeakDBTP
            record.samplePeakDbfs = l?.samplePeakDBFS
            record.replaygainTrackGainDb = l?.replayGainDB
            record.loudnessBlocks = l?.blocks
        }
        if on.contains(.silence) {
            record.leadSilenceEndS = a?.silence?.leadSilenceEnd
            record.trailSilenceStartS = a?.silence?.trailSilenceStart
            record.isSilent = a?.silence?.isSilent
        }
        if on.contains(.frames), let frames = a?.frames {
            record.framesFps = frames.fps
            record.framesBands = frames.bands
            record.framesCount = frames.count
            let profile = frames.profile
            if profile.count == 3 {
                record.spectrumLow = profile[0]
                record.spectrumMid = profile[1]
                record.spectrumHigh = profile[2]
            }
            var blob = VisFramesRecord(fileId: fileId, fps: frames.fps, bands: frames.bands, count: frames.count,
                                       data: Data(frames.data))
            try blob.upsert(db)
        }
        try record.upsert(db)
    }
}
