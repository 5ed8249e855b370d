import Analysis
import Foundation

/// Weights with MusiCNN's names and shapes made by a formula, for tests: the real ones are fetched at install,
/// never in tests. scripts/musicnn_reference.py's values for them are what MusicnnNetworkTests expects.
public enum MusicnnFormulaWeights {
    static let shapes: [String: [Int]] = {
        var s: [String: [Int]] = [:]
        for (i, n) in [1, 204, 204, 51, 51, 51, 64, 64, 64, 1506, 200].enumerated() {
            for part in ["beta", "gamma", "moving_mean", "moving_variance"] {
                s["batch_normalization" + (i == 0 ? "" : "_\(i)") + "/" + part] = [n]
            }
        }
        for (i, k) in [[7, 38, 1, 204], [7, 67, 1, 204], [128, 1, 1, 51], [64, 1, 1, 51], [32, 1, 1, 51],
                       [7, 561, 1, 64], [7, 64, 1, 64], [7, 64, 1, 64]].enumerated() {
            let p = i == 0 ? "conv2d/" : "conv2d_\(i)/"
            s[p + "kernel"] = k
            s[p + "bias"] = [k[3]]
        }
        s["dense/kernel"] = [1506, 200]; s["dense/bias"] = [200]; s["dense_1/kernel"] = [200, 50]; s["dense_1/bias"] = [50]
        return s
    }()

    /// The k-th tensor (by name) at element i, as the reference's test generator has it.
    static func value(_ name: String, _ k: Int, _ i: Int, _ shape: [Int]) -> Float {
        let (k, i) = (Double(k), Double(i))
        if name.hasSuffix("moving_variance") { return Float(0.5 + 0.25 * (1 + sin(0.37 * i + k))) }
        if name.hasSuffix("gamma") { return Float(1 + 0.1 * sin(0.11 * i + k)) }
        if name.hasSuffix("kernel") { return Float(sin(0.7 * i + 0.3 * k) / Double(shape.reduce(1, *) / shape.last!).squareRoot()) }
        return Float(0.1 * sin(0.7 * i + 0.3 * k))
    }

    public static func make() -> NetworkWeights {
        var tensors: [String: NetworkWeights.Tensor] = [:]
        for (k, name) in shapes.keys.sorted().enumerated() {
            let shape = shapes[name]!
            tensors[name] = NetworkWeights.Tensor(shape: shape, values: (0..<shape.reduce(1, *)).map { value(name, k, $0, shape) })
        }
        return NetworkWeights(tensors: tensors)
    }

    /// Them as a weight file in `folder`, named as the tagger looks for it.
    public static func write(into folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try make().encoded().write(to: URL(fileURLWithPath: folder + "/musicnn-msd.weights"))
    }
}
