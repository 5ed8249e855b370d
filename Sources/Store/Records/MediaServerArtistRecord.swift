import GRDB

/// One artist a media server credits one of its tracks with, both by the server's ids.
public struct MediaServerArtistRecord: SnakeCaseRecord, Sendable, Equatable, Hashable {
    public static let databaseTableName = "media_server_artists"
    public var server: MediaServer
    public var trackId: String
    public var artistId: String
    public var artistName: String

    public init(server: MediaServer, trackId: String, artistId: String, artistName: String) {
        self.server = server; self.trackId = trackId; self.artistId = artistId; self.artistName = artistName
    }
}
