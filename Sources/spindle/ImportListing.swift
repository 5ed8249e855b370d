import Pipeline

/// What a media server import prints after its summary: tracks per strategy, then those that resolved to nothing.
enum ImportListing {
    static func print(byStrategy: [Int: Int], unresolved: [(id: String, path: String)], verbosity: Verbosity) {
        for (strategy, count) in byStrategy.sorted(by: { $0.key < $1.key }) { Swift.print("  strategy \(strategy): \(count)") }
        guard !unresolved.isEmpty else { return }
        Swift.print("unresolved:")
        for u in unresolved.prefix(verbosity == .verbose ? .max : 50) { Swift.print(TerminalText.safe("  \(u.id)  \(u.path)")) }
        if unresolved.count > 50 && verbosity != .verbose {
            Swift.print("  … and \(unresolved.count - 50) more (--verbose lists all)")
        }
    }
}
