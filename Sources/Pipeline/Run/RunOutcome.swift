import Foundation
import Library

extension LibraryJobs {
    /// What a run did, stage by stage: the summary a person reads and the JSON a script reads.
    public struct Outcome: Sendable {
        public var runId: Int64
        public var scan: ScanReport?
        public var tags: TagStage.Report?
        public var analysis: AnalyzeStage.Report?
        public var tagfix: TagBatch.Report?
        public var rescanned: String?
        /// The Subsonic server could not be told to rescan (counts as a failure: exit code 3).
        public var rescanFailed = false
        public var genres: GenresStage.Report?
        public var reportWritten: String?
        public var playlists: PlaylistsStage.Report?
        /// What each media server import did, one line each; those that failed count as failures.
        public var serverImports: [String] = []
        public var serverImportsFailed = 0
        public var interruptedRuns = 0
        /// The folder the library was at before it moved to this run's (`RootRelocation`).
        public var libraryMovedFrom: String?
        public var seconds = 0.0
        /// The signal that stopped this run before its last stage ended (`StopRequest`).
        public var stoppedBy: Int32?
        /// Files that failed at some stage in this run (exit code 3 when non-zero).
        public var failures: Int {
            (tags?.failed ?? 0) + (analysis?.failed ?? 0) + (tagfix.map { $0.failed.count + $0.conflicts.count + $0.refusals.count } ?? 0)
                + (rescanFailed ? 1 : 0) + serverImportsFailed
        }

        public func summary() -> String {
            var parts: [String] = []
            if interruptedRuns > 0 { parts.append("resumed after \(interruptedRuns) interrupted run(s)") }
            if let from = libraryMovedFrom {
                parts.append(TerminalText.safe("library: moved here from \(from); its files keep their tags and analysis"))
            }
            if let t = tagfix {
                if t.dryRun {
                    parts.append(t.diff.isEmpty ? "tags: nothing to change (dry run)" : t.diff + "\n(dry run: nothing written)")
                } else {
                    parts.append("tags: batch \(t.batchId.map { "#\($0)" } ?? "(none)"): \(t.filesChanged) files, \(t.keysChanged) keys changed")
                }
                for r in t.refusals { parts.append(TerminalText.safe("refused \(r.input): \(r.reason)")) }
                for f in t.failed { parts.append(TerminalText.safe("failed \(f.path): \(f.reason)")) }
                for c in t.conflicts { parts.append(TerminalText.safe("not restored \(c.path): \(c.reason)")) }
            }
            if let r = rescanned { parts.append("navidrome: \(r)") }
            parts += serverImports
            if let scan {
                parts.append("scan: \(scan.seen) audio files (\(scan.new) new, \(scan.changed) changed, \(scan.moved) moved, "
                    + "\(scan.missing) missing, \(scan.unchanged) unchanged) in \(String(format: "%.2f", scan.seconds)) s"
                    + (scan.retagged > 0 ? "; \(scan.retagged) retagged with the audio unchanged keep their analysis" : "")
                    + (scan.unreadable > 0 ? "; \(scan.unreadable) in folders that could not be read or on disks not mounted are left as they were" : "")
                    + (scan.forgotten > 0 ? "; \(scan.forgotten) missing for over \(Int((scan.keptMissing ?? 0) / 86_400)) days "
                        + "forgotten, with their results" : ""))
                if !scan.skipped.isEmpty { parts.append("skipped: \(scan.skipped.count) entries (see status)") }
            }
            if let tags { parts.append("tags: \(tags.read) read, \(tags.failed) failed") }
            if let a = analysis {
                let decoding = a.seconds - a.copySeconds
                let speed = decoding > 0 && a.audioSeconds > 0 ? String(format: ", %.0f× real time", a.audioSeconds / decoding) : ""
                let copied = a.copied > 0 ? ", \(a.copied) copies of identical files given their results" : ""
                parts.append("analyze: \(a.analysed) analysed (\(a.partial) partial)\(copied), \(a.failed) failed\(speed)")
            }
            if let g = genres {
                parts.append("genres: \(g.genres) composite genres, \(g.memberships) memberships (\(g.dropped) candidates dropped)")
            }
            if let r = reportWritten { parts.append("report: \(r)") }
            if let p = playlists, p.genres == 0, p.written + p.unchanged + p.removed + p.skipped.count == 0 {
                parts.append("playlists: none: the library has no composite genres yet (`spindle genres build` makes them)")
            } else if let p = playlists {
                parts.append(TerminalText.safe("playlists: \(p.written) written, \(p.unchanged) unchanged, \(p.removed) removed, "
                    + "\(p.skipped.count) left alone, in \(p.folder)"))
            }
            if let signal = stoppedBy {
                parts.append(String(format: "run #%lld stopped by %@ after %.2f s; what finished is saved", runId,
                                    StopRequest.name(signal), seconds))
            } else {
                parts.append(String(format: "run #%lld finished in %.2f s", runId, seconds))
            }
            return parts.joined(separator: "\n")
        }

        public func json() -> JSONValue {
            var pairs: [(String, JSONValue)] = [("run_id", .integer(runId)), ("seconds", .from(seconds, digits: 3)),
                                                ("interrupted_runs_closed", .from(interruptedRuns))]
            if let from = libraryMovedFrom { pairs.append(("library_moved_from", .string(from))) }
            if let s = scan {
                pairs.append(("scan", .object([
                    ("seen", .from(s.seen)), ("new", .from(s.new)), ("changed", .from(s.changed)), ("moved", .from(s.moved)),
                    ("missing", .from(s.missing)), ("unchanged", .from(s.unchanged)), ("skipped", .from(s.skipped.count)),
                    ("retagged", .from(s.retagged)), ("unreadable", .from(s.unreadable)), ("forgotten", .from(s.forgotten)),
                ])))
            }
            if let t = tags { pairs.append(("tags", .object([("read", .from(t.read)), ("failed", .from(t.failed))]))) }
            if let a = analysis {
                pairs.append(("analyze", .object([
                    ("analysed", .from(a.analysed)), ("partial", .from(a.partial)), ("failed", .from(a.failed)),
                    ("crashed", .from(a.crashed)), ("audio_seconds", .from(a.audioSeconds, digits: 3)), ("copied", .from(a.copied)),
                ])))
            }
            if let g = genres {
                pairs.append(("genres", .object([("genres", .from(g.genres)), ("memberships", .from(g.memberships)),
                                                 ("dropped", .from(g.dropped))])))
            }
            if let r = reportWritten { pairs.append(("report", .string(r))) }
            if let p = playlists {
                pairs.append(("playlists", .object([
                    ("folder", .string(p.folder)), ("written", .from(p.written)), ("unchanged", .from(p.unchanged)),
                    ("removed", .from(p.removed)), ("composite_genres", .from(p.genres)),
                    ("left_alone", .array(p.skipped.map { .object([("file", .string($0.file)), ("reason", .string($0.reason))]) })),
                ])))
            }
            if let t = tagfix {
                pairs.append(("tag_batch", .object([
                    ("batch_id", t.batchId.map { .integer($0) } ?? .null), ("dry_run", .bool(t.dryRun)),
                    ("files_changed", .from(t.filesChanged)), ("keys_changed", .from(t.keysChanged)),
                    ("failed", .array(t.failed.map { .object([("path", .string($0.path)), ("error", .string($0.reason))]) })),
                    ("conflicts", .array(t.conflicts.map { .object([("path", .string($0.path)), ("error", .string($0.reason))]) })),
                    ("refused", .array(t.refusals.map { .object([("path", .string($0.input)), ("error", .string($0.reason))]) })),
                ])))
            }
            pairs.append(("failures", .from(failures)))
            return .object(pairs)
        }
    }
}
