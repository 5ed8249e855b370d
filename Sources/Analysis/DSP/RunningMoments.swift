/// Mean and standard deviation of a stream of vectors (Welford's update), in fixed memory.
struct RunningMoments {
    private(set) var count = 0
    private(set) var mean: [Double]
    private var m2: [Double]

    init(dimensions: Int) {
        mean = [Double](repeating: 0, count: dimensions)
        m2 = mean
    }

    mutating func add(_ x: [Double]) {
        count += 1
        let n = Double(count)
        for i in mean.indices {
            let delta = x[i] - mean[i]
            mean[i] += delta / n
            m2[i] += delta * (x[i] - mean[i])
        }
    }

    var standardDeviation: [Double] {
        count > 1 ? m2.map { ($0 / Double(count - 1)).squareRoot() } : m2.map { _ in 0 }
    }
}
