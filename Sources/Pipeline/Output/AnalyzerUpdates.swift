import Foundation

/// Files due again because an analyzer changed since they were analysed, as after an upgrade: `status` and
/// `analyze` say which analyzer and for how many files, so a night spent on the whole library is no mystery
/// (and only that analyzer runs on them).
enum AnalyzerUpdates {
    /// Per analyzer, how many files hold results of an older version of it: `stored` gives sets of stored
    /// versions, each with the number of files holding it.
    static func count(_ stored: [(versions: [String: Int], files: Int)], versions: [String: Int]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for (held, files) in stored {
            for (name, version) in versions {
                if let had = held[name], had > 0, had < version { counts[name, default: 0] += files }
            }
        }
        return counts
    }

    /// "tempo 133, loudness 2" (by name), for the analyzers that have any.
    static func text(_ counts: [String: Int]) -> String {
        counts.keys.sorted().map { "\($0) \(counts[$0]!)" }.joined(separator: ", ")
    }
}
