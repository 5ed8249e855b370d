import Foundation
import Store

/// Finds the library file a media server's track is, from the path the server knows it by (relative to a
/// library folder, or absolute under the server's own mount such as `/music/…`). A path that does not resolve
/// is tried again as the tag-built path a Subsonic client would see (AlbumArtist/Album/Title.ext).
public struct ServerTrackMatcher {
    public let resolver: PathResolver
    let database: SpindleDatabase
    let root: LibraryRoot

    public init(database: SpindleDatabase, root: LibraryRoot) throws {
        self.resolver = try PathResolver(database: database, root: root)
        self.database = database
        self.root = root
    }

    public struct Match: Sendable {
        /// The file's id in `files`, nil when nothing resolved.
        public var fileId: Int64?
        public var strategy: Int?
        public var tried: [String]
        /// The paths tried, as the JSON array the id tables' `tried` column holds.
        public var triedJSON: String {
            (try? JSONEncoder().encode(tried)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        }
    }

    public func match(path: String, title: String?, album: String?, artist: String?, suffix: String?) throws -> Match {
        var resolution = try resolver.resolve(path)
        var tried = resolution.tried
        if resolution.resolved == nil, let title {
            let fake = [artist ?? "", album ?? "", title + (suffix.map { ".\($0)" } ?? "")]
                .map { $0.replacingOccurrences(of: "/", with: "_") }.joined(separator: "/")
            let second = try resolver.resolve(fake)
            tried += second.tried
            if second.resolved != nil { resolution = second }
        }
        guard let resolved = resolution.resolved,
              let fileId = try database.writer.read({ db in try FileQueries.fileId(db, rootPath: root.path, path: resolved) })
        else { return Match(fileId: nil, strategy: nil, tried: tried) }
        return Match(fileId: fileId, strategy: resolution.strategy, tried: tried)
    }
}
