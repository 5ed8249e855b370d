import Foundation
import Library
import Tagging

/// `tags show`: the tags of library files, for a person or as JSON. A file found only by name or words is
/// shown with a note saying so (reads may use every strategy; writes may not).
public struct TagsShowReport: Sendable {
    /// What goes to standard output (nil when the file could not be shown).
    public var output: String?
    /// What goes to standard error: notes and the reason a file could not be shown.
    public var notes: [String] = []
    public var failed: Bool { output == nil }

    public static func show(_ inputs: [String], settings: Settings, json: Bool) throws -> [TagsShowReport] {
        let (database, root) = try LibraryJobs.openForReading(settings)
        let resolver = try PathResolver(database: database, root: root)
        return try TypedPaths.expanded(inputs, resolver: resolver, database: database).map { input in
            var report = TagsShowReport()
            let r = try resolver.resolve(input)
            guard let path = r.resolved else {
                report.notes.append(TerminalText.safe("\(input): \(r.writeRefusal ?? "not found in the library")"))
                return report
            }
            if !r.isExact {
                report.notes.append("\(TerminalText.safe(input)): no file at this path; showing \(TerminalText.safe(path)), found by \(r.guessedBy)")
            }
            do {
                let file = try ConfinedFile(root: root, relative: path)
                let tags = try TagReader.read(path: file.path)
                report.output = json ? Self.json(path: path, tags) : Self.text(path: path, tags)
            } catch {
                // The reason alone: TagLib read the file through its confined /proc/self/fd path, which names
                // nothing the user typed.
                report.notes.append(TerminalText.safe("\(path): \(TagBatch.reason(error))"))
            }
            return report
        }
    }

    static func json(path: String, _ tags: TagSnapshot) -> String {
        let props = JSONValue.object(tags.properties.keys.sorted().map { ($0, .array(tags.properties[$0]!.map { .string($0) })) })
        return JSONValue.object([("path", .string(path)), ("codec", .string(tags.codec)),
                                 ("duration_s", .from(tags.durationSeconds)), ("tags", props)]).serialized()
    }

    static func text(path: String, _ tags: TagSnapshot) -> String {
        ([TerminalText.safe(path)] + tags.properties.keys.sorted().map { key in
            "  \(TerminalText.safe(key)) = \(tags.properties[key]!.map(TerminalText.safe).joined(separator: " | "))"
        }).joined(separator: "\n")
    }
}
