/// Artists near one artist in the sonic space: each artist is the mean of its analysed tracks, and two artists
/// are as near as their means. A pair's representative songs are each artist's tracks nearest the other's mean,
/// the songs through which the two sound alike (AudioMuse-AI's "component matches").
public struct ArtistNeighbours: Sendable {
    public let space: SonicSpace
    /// The rows of each artist's analysed tracks, by artist key.
    public let rows: [String: [Int]]
    private let centroids: [String: [Float]]

    public init(space: SonicSpace, rows: [String: [Int]]) {
        self.space = space
        self.rows = rows.filter { !$0.value.isEmpty }
        var centroids: [String: [Float]] = [:]
        for (artist, members) in self.rows {
            var mean = [Float](repeating: 0, count: space.dimensions)
            for row in members {
                for j in 0..<space.dimensions { mean[j] += space.values[row * space.dimensions + j] }
            }
            let n = Float(members.count)
            centroids[artist] = mean.map { $0 / n }
        }
        self.centroids = centroids
    }

    public struct Neighbour: Sendable {
        public var artist: String
        public var distance: Double
    }

    /// The `count` artists nearest `artist`, nearest first (ties by key, so answers repeat), it left out.
    public func nearest(to artist: String, count: Int) -> [Neighbour] {
        guard let centre = centroids[artist], count > 0 else { return [] }
        var found: [Neighbour] = []
        for (other, mean) in centroids where other != artist {
            found.append(Neighbour(artist: other, distance: Double(Self.distance2(centre, mean)).squareRoot()))
        }
        found.sort { ($0.distance, $0.artist) < ($1.distance, $1.artist) }
        return Array(found.prefix(count))
    }

    /// Up to `count` of `artist`'s tracks nearest `other`'s mean, nearest first, with their distance from it.
    public func representatives(of artist: String, towards other: String, count: Int) -> [(row: Int, distance: Double)] {
        guard let members = rows[artist], let target = centroids[other] else { return [] }
        let d = space.dimensions
        let scored = members.map { row -> (Float, Int) in
            var s: Float = 0
            for j in 0..<d { let t = space.values[row * d + j] - target[j]; s += t * t }
            return (s, row)
        }
        return scored.sorted { ($0.0, space.tracks[$0.1].path) < ($1.0, space.tracks[$1.1].path) }.prefix(count)
            .map { (row: $0.1, distance: Double($0.0).squareRoot()) }
    }

    static func distance2(_ a: [Float], _ b: [Float]) -> Float {
        var s: Float = 0
        for j in a.indices { let t = a[j] - b[j]; s += t * t }
        return s
    }
}
