import Foundation

/// A journey from one track to another through the sonic space, as Navidrome's `findSonicPath` and AudioMuse's
/// song paths give: `count` real tracks, the two ends included, each step near the point as far along the
/// straight line between the ends, and each transition as smooth as a mix's (timbre close, tempo matchable,
/// keys compatible: `MixPlanner`'s costs). No track or recording comes twice, and no artist twice in a row.
public struct SongPath: Sendable {
    public var planner: MixPlanner
    /// How much a step's distance from its point on the line counts against the smoothness of the transition.
    public var linePull = 3.0
    /// Candidates kept along the line, for a path of n: `poolFactor × n`, at least 200.
    public var poolFactor = 30

    public init(space: SonicSpace) { planner = MixPlanner(space: space) }

    var space: SonicSpace { planner.space }

    /// The path from `start` to `end` of `count` tracks (at least the two ends), or fewer when the library
    /// runs out of tracks that are neither repeats nor the same artist twice in a row. Each step's `distance`
    /// is from the step before it.
    public func plan(from start: Int, to end: Int, count: Int) -> [MixPlanner.Step] {
        guard start != end else { return [MixPlanner.Step(row: start, distance: 0, transition: "start")] }
        let n = max(2, count)
        let pool = alongTheLine(start, end, size: max(poolFactor * n, 200))
        var steps = [MixPlanner.Step(row: start, distance: 0, transition: "start")]
        var chosen = [start, end]
        var typicals: [Int: Double] = [:]
        func typical(_ row: Int) -> Double {
            if let known = typicals[row] { return known }
            let distance = MixPlanner.typical(space.nearest(to: row, count: 2 * MixPlanner.typicalRank))
            typicals[row] = distance
            return distance
        }
        var current = start
        for k in 1..<(n - 1) {
            let along = Float(k) / Float(n - 1)
            var best: (cost: Double, row: Int)?
            for row in pool where !chosen.contains(row) && !planner.sameArtist(current, row) {
                let cost = linePull * distance(row, toPointAt: along, from: start, to: end) + space.distance(current, row)
                    + planner.penalty(current, row)
                guard best == nil || cost < best!.cost || (cost == best!.cost && row < best!.row) else { continue }
                guard !chosen.contains(where: { planner.isRepeat($0, row, typical: typical) }) else { continue }
                best = (cost, row)
            }
            guard let next = best else { break }
            steps.append(MixPlanner.Step(row: next.row, distance: space.distance(current, next.row),
                                         transition: planner.transition(current, next.row)))
            chosen.append(next.row)
            current = next.row
        }
        steps.append(MixPlanner.Step(row: end, distance: space.distance(current, end), transition: planner.transition(current, end)))
        return steps
    }

    /// The `size` rows nearest the segment from `start` to `end` (the ends left out), nearest first; ties go to
    /// the earlier row. One scan of the space: a path of 25 over 100,000 tracks looks at this pool only.
    func alongTheLine(_ start: Int, _ end: Int, size: Int) -> [Int] {
        let d = space.dimensions
        var scored: [(Float, Int)] = []
        scored.reserveCapacity(space.count)
        space.values.withUnsafeBufferPointer { v in
            var length2: Float = 0
            for j in 0..<d { let t = v[end * d + j] - v[start * d + j]; length2 += t * t }
            for row in 0..<space.count where row != start && row != end {
                var dot: Float = 0
                for j in 0..<d { dot += (v[row * d + j] - v[start * d + j]) * (v[end * d + j] - v[start * d + j]) }
                let along = length2 > 0 ? min(1, max(0, dot / length2)) : 0
                scored.append((Float(distance(row, toPointAt: along, from: start, to: end)), row))
            }
        }
        scored.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        return scored.prefix(size).map(\.1)
    }

    /// How far `row` lies from the point `along` (0 to 1) of the way from `start` to `end`.
    func distance(_ row: Int, toPointAt along: Float, from start: Int, to end: Int) -> Double {
        let d = space.dimensions, v = space.values
        var s: Float = 0
        for j in 0..<d {
            let point = v[start * d + j] + along * (v[end * d + j] - v[start * d + j])
            let t = v[row * d + j] - point
            s += t * t
        }
        return Double(s).squareRoot()
    }
}
