import Foundation
import Navidrome
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads Jellyfin's audio items through its HTTP API (`/Items?Recursive=true&IncludeItemTypes=Audio&Fields=Path`),
/// a page at a time, with an API key (Dashboard → API Keys) sent in the `Authorization` header, never in a URL.
public struct JellyfinClient: Sendable {
    /// One audio item as `/Items` answers it (BaseItemDto), the fields the id map needs.
    public struct Item: Decodable, Sendable {
        public var Id: String
        public var Name: String?
        public var Path: String?
        public var Album: String?
        public var AlbumArtist: String?
        public var Container: String?
        public var ArtistItems: [Artist]?
        public var AlbumArtists: [Artist]?
    }

    public struct Artist: Decodable, Sendable {
        public var Name: String?
        public var Id: String
    }

    struct Page: Decodable {
        var Items: [Item]
        var TotalRecordCount: Int?
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let baseURL: URL
    let apiKey: String
    public var pageSize = 1000
    /// Past this many items the server is not believed: no library is this large, and it bounds memory.
    public var maxItems = 5_000_000

    public init(baseURL: URL, apiKey: String) {
        self.baseURL = SubsonicClient.withoutUserInfo(baseURL)
        self.apiKey = apiKey
    }

    /// Every audio item, in the server's order. `progress` hears the count read so far after each page.
    public func audioItems(progress: (Int, Int?) -> Void = { _, _ in }) throws -> [Item] {
        var items: [Item] = []
        while true {
            let page = try fetch(start: items.count)
            items += page.Items
            progress(items.count, page.TotalRecordCount)
            guard items.count <= maxItems else { throw Failure(description: "\(baseURL.absoluteString) lists more than \(maxItems) items") }
            if page.Items.isEmpty || page.Items.count < pageSize || items.count >= (page.TotalRecordCount ?? .max) { return items }
        }
    }

    func url(start: Int) -> URL {
        var components = URLComponents(url: baseURL.appendingPathComponent("Items"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "Recursive", value: "true"), URLQueryItem(name: "IncludeItemTypes", value: "Audio"),
            URLQueryItem(name: "Fields", value: "Path"), URLQueryItem(name: "SortBy", value: "SortName"),
            URLQueryItem(name: "StartIndex", value: String(start)), URLQueryItem(name: "Limit", value: String(pageSize)),
        ]
        return components.url!
    }

    private func fetch(start: Int) throws -> Page {
        var request = URLRequest(url: url(start: start))
        request.timeoutInterval = 120
        request.setValue("MediaBrowser Client=\"Spindle\", Token=\"\(apiKey)\"", forHTTPHeaderField: "Authorization")
        let answer = BlockingHTTP.send(request)
        if let error = answer.error {
            throw Failure(description: "cannot reach \(baseURL.absoluteString): \(error.localizedDescription)")
        }
        guard let response = answer.response else { throw Failure(description: "no HTTP response from \(baseURL.absoluteString)") }
        switch response.statusCode {
        case 200: break
        case 401, 403: throw Failure(description: "Jellyfin refused the API key (HTTP \(response.statusCode)); make one under Dashboard → API Keys")
        default: throw Failure(description: "\(baseURL.absoluteString)/Items answered HTTP \(response.statusCode)")
        }
        do {
            return try JSONDecoder().decode(Page.self, from: answer.data ?? Data())
        } catch {
            throw Failure(description: "\(baseURL.absoluteString)/Items did not answer Jellyfin's item list: \(error)")
        }
    }
}
