import Foundation
import Library
import Store
import Tagging

extension LibraryJobs {
    /// Stage `tagfix`: brings the index up to date (paths resolve against it), builds the edits, then shows
    /// them (dry run) or journals and writes them.
    static func runTagfix(_ request: TagfixRequest, scanner: LibraryScanner, database: SpindleDatabase,
                          root: LibraryRoot, reads: TagReads) throws -> TagBatch.Report {
        _ = try scanner.scan()
        let resolver = try PathResolver(database: database, root: root)
        if case .undo(let batch) = request.source {
            return try TagBatch.undo(batch: batch, database: database, root: root)
        }
        var notes: [String] = []
        let edits: [(String, TagEdit)]
        // For analysis tags: the content each file's results are of.
        var analysedContent: [String: String]?
        // Fixers and analysis tags without paths sweep the library: a file they cannot tag is passed over.
        var wholeLibrary = false
        switch request.source {
        case .edits(let e):
            // A folder typed on the command line edits every file under it.
            edits = try e.flatMap { input, edit in
                (try TypedPaths.files(input, root: root, database: database) ?? [input]).map { ($0, edit) }
            }
        case .file(let path): edits = try TagEditSources.file(path)
        case .fixers(let fixers, let paths):
            wholeLibrary = paths?.isEmpty ?? true
            let targets = try targetPaths(paths, resolver: resolver, database: database, root: root)
            var files: [(path: String, tags: TagSnapshot)] = []
            for (p, read) in zip(targets, try reads.read(targets.map { root.absolute($0) })) {
                if case .success(let t) = read { files.append((p, t)) }
            }
            let taxonomy = fixers.contains(.genreAliases) ? try DataFiles.taxonomy() : nil
            edits = TagFixer.edits(fixers, files: files, taxonomy: taxonomy)
        case .analysis(let fields, let paths, let minBPMConfidence, let minMoodProbability):
            wholeLibrary = paths?.isEmpty ?? true
            let targets = try paths.map { try targetPaths($0, resolver: resolver, database: database, root: root) }
            let made = try AnalysisTags.edits(paths: targets, fields: fields, minBPMConfidence: minBPMConfidence,
                                              minMoodProbability: minMoodProbability, database: database, rootPath: root.path)
            (edits, notes, analysedContent) = (made.edits, made.notes, made.analysedContent)
        case .undo: edits = []
        }
        var (plans, refusals, unwritable) = try TagBatch.plan(edits.map { (input: $0.0, edit: $0.1) }, resolver: resolver,
                                                              database: database, allowCustom: request.allowCustom || !request.source.keysTyped,
                                                              reads: reads, skipUnwritable: wholeLibrary)
        if let analysedContent {
            let kept = AnalysisTags.ofAnalysedContent(plans, analysedContent)
            plans = kept.plans
            refusals += kept.refusals
        }
        if !unwritable.isEmpty {
            notes.append("\(unwritable.count) file(s) left alone: their tags can be read but TagLib cannot write their "
                         + "format (e.g. \(unwritable[0]))")
        }
        let space = TagBatchSpace.of(plans.map { ($0.path, TagBatchSpace.growth($0.changes)) }, root: root)
        if let note = space.note { notes.append(note) }
        if request.dryRun {
            do { try space.check() } catch { notes.append("\(error)") }
        }
        for n in notes { logLine(n) }
        var report: TagBatch.Report
        if request.dryRun {
            report = TagBatch.Report()
            report.dryRun = true
            report.diff = TagBatch.diff(plans)
            report.filesChanged = plans.count
            report.keysChanged = plans.reduce(0) { $0 + $1.changes.count }
        } else {
            try space.check()
            report = try TagBatch.apply(plans, command: request.command, database: database, root: root,
                                        id3v2Version: request.id3v2Version)
        }
        report.refusals = refusals
        return report
    }

    /// The files a writing command names (exact paths only; refusals are fatal here), or the whole library.
    static func targetPaths(_ paths: [String]?, resolver: PathResolver, database: SpindleDatabase,
                            root: LibraryRoot) throws -> [String] {
        guard let paths, !paths.isEmpty else {
            return try database.writer.read { db in try FileQueries.presentPaths(db, rootPath: root.path) }
        }
        return try TypedPaths.expanded(paths, resolver: resolver, database: database).map { input in
            // These files are written: only the path itself (strategies 1–2) may name one.
            let r = try resolver.resolve(input)
            guard let resolved = r.resolved, r.writeRefusal == nil else {
                throw ConfigurationError("\(input): \(r.writeRefusal ?? "not found in the library")")
            }
            return resolved
        }
    }
}
