import Jellyfin
import Navidrome

/// The navidrome-import stage: Navidrome's track and artist ids mapped again, so that the AudioMuse-AI API
/// knows tonight's new tracks. A database that cannot be read is a failure of the run (exit 3), not its end.
struct NavidromeImportRunStage: RunStage {
    let stage = Stage.navidromeImport

    func run(_ state: RunState) throws -> Bool {
        guard let path = state.request.navidromeDB else { return true }
        do {
            let report = try NavidromeImport.run(navidromeDB: path, database: state.database, root: state.root)
            state.outcome.serverImports.append(report.summary)
        } catch let error as NavidromeError {
            state.outcome.serverImports.append("navidrome import failed: \(error)")
            state.outcome.serverImportsFailed += 1
        }
        return true
    }
}

/// The jellyfin-import stage: Jellyfin's item and artist ids read through its API and mapped again.
struct JellyfinImportRunStage: RunStage {
    let stage = Stage.jellyfinImport

    func run(_ state: RunState) throws -> Bool {
        guard let client = state.request.jellyfin else { return true }
        do {
            let items = try client.audioItems()
            let report = try JellyfinImport.run(items: items, database: state.database, root: state.root)
            state.outcome.serverImports.append(report.summary)
        } catch let error as JellyfinClient.Failure {
            state.outcome.serverImports.append("jellyfin import failed: \(error)")
            state.outcome.serverImportsFailed += 1
        }
        return true
    }
}
