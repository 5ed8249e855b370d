import Foundation

/// The library's map: every track projected on the two principal axes of the space (PCA by power
/// iteration on the covariance), so that near on the map means near in sound as far as two axes can show.
public struct Projection: Sendable {
    public var x: [Double]
    public var y: [Double]
    /// Share of the total variance each axis shows.
    public var explained: (Double, Double)

    public init(_ space: SonicSpace) {
        let d = space.dimensions, n = space.count
        var mean = [Double](repeating: 0, count: d)
        for i in 0..<n { for j in 0..<d { mean[j] += Double(space.values[i * d + j]) } }
        for j in 0..<d { mean[j] /= Double(n) }
        var cov = [Double](repeating: 0, count: d * d)
        var row = [Double](repeating: 0, count: d)
        for i in 0..<n {
            for j in 0..<d { row[j] = Double(space.values[i * d + j]) - mean[j] }
            for a in 0..<d where row[a] != 0 { for b in a..<d { cov[a * d + b] += row[a] * row[b] } }
        }
        for a in 0..<d { for b in a..<d { cov[a * d + b] /= Double(n); cov[b * d + a] = cov[a * d + b] } }
        let total = (0..<d).reduce(0) { $0 + cov[$1 * d + $1] }
        let first = Self.principal(cov, d)
        var deflated = cov
        for a in 0..<d { for b in 0..<d { deflated[a * d + b] -= first.value * first.vector[a] * first.vector[b] } }
        let second = Self.principal(deflated, d)
        func project(_ v: [Double]) -> [Double] {
            (0..<n).map { i in (0..<d).reduce(0) { $0 + (Double(space.values[i * d + $1]) - mean[$1]) * v[$1] } }
        }
        x = project(first.vector)
        y = project(second.vector)
        explained = total > 0 ? (first.value / total, second.value / total) : (0, 0)
    }

    /// The largest eigenpair of a symmetric matrix; the vector's largest component is made positive so the
    /// map does not flip between runs.
    static func principal(_ m: [Double], _ d: Int) -> (value: Double, vector: [Double]) {
        var v = (0..<d).map { 1 + Double($0) / Double(d) }
        var value = 0.0
        for _ in 0..<300 {
            var w = [Double](repeating: 0, count: d)
            for a in 0..<d { for b in 0..<d { w[a] += m[a * d + b] * v[b] } }
            let norm = w.reduce(0) { $0 + $1 * $1 }.squareRoot()
            guard norm > 1e-15 else { return (0, v.map { _ in 0 }) }
            w = w.map { $0 / norm }
            let change = zip(w, v).reduce(0) { $0 + abs($1.0 - $1.1) }
            v = w
            value = norm
            if change < 1e-10 { break }
        }
        if let big = v.indices.max(by: { abs(v[$0]) < abs(v[$1]) }), v[big] < 0 { v = v.map { -$0 } }
        return (value, v)
    }
}
