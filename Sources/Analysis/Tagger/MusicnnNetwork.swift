import CBLAS
import Foundation

/// MusiCNN trained on the Million Song Dataset (Pons & Serra, "musicnn: pre-trained convolutional neural networks
/// for music audio tagging", 2019), run natively. A patch is 187 frames (3 s) of 96 log-mel bands; it gives 50 tag
/// probabilities and the 200-wide penultimate layer, the embedding. Front end: timbral convolutions of 7 frames ×
/// 38 and × 67 bands (204 filters each) and temporal ones of 128, 64 and 32 frames (51 each), each max-pooled over
/// frequency; mid end: three 7-frame convolutions of 64 filters, the last two residual; back end: max and mean over
/// time, a dense layer of 200 and the 50 outputs. Batch normalisation (epsilon 0.001) follows every layer; the
/// convolutions' matrix products go to BLAS.
public struct MusicnnNetwork: Sendable {
    public static let frames = 187, bands = 96, tagCount = 50, embeddingWidth = 200

    struct Norm: Sendable {
        var scale: [Float], shift: [Float]
    }

    struct Convolution: Sendable {
        var kernel: [Float], bias: [Float]
        var length: Int, width: Int, filters: Int
        var norm: Norm
    }

    let input: Norm
    let timbral: [Convolution]
    let temporal: [Convolution]
    let mid: [Convolution]
    let poolNorm: Norm
    let dense: (kernel: [Float], bias: [Float])
    let denseNorm: Norm
    let output: (kernel: [Float], bias: [Float])

    public init(weights w: NetworkWeights) throws {
        func norm(_ i: Int, _ n: Int) throws -> Norm {
            let p = "batch_normalization" + (i == 0 ? "" : "_\(i)") + "/"
            let gamma = try w.tensor(p + "gamma", [n]), beta = try w.tensor(p + "beta", [n])
            let mean = try w.tensor(p + "moving_mean", [n]), variance = try w.tensor(p + "moving_variance", [n])
            let scale = (0..<n).map { gamma[$0] / (variance[$0] + 0.001).squareRoot() }
            return Norm(scale: scale, shift: (0..<n).map { beta[$0] - mean[$0] * scale[$0] })
        }
        func conv(_ i: Int, _ length: Int, _ width: Int, _ filters: Int, norm n: Int) throws -> Convolution {
            let p = i == 0 ? "conv2d/" : "conv2d_\(i)/"
            return Convolution(kernel: try w.tensor(p + "kernel", [length, width, 1, filters]), bias: try w.tensor(p + "bias", [filters]),
                               length: length, width: width, filters: filters, norm: try norm(n, filters))
        }
        input = try norm(0, 1)
        timbral = [try conv(0, 7, 38, 204, norm: 1), try conv(1, 7, 67, 204, norm: 2)]
        temporal = [try conv(2, 128, 1, 51, norm: 3), try conv(3, 64, 1, 51, norm: 4), try conv(4, 32, 1, 51, norm: 5)]
        mid = [try conv(5, 7, 561, 64, norm: 6), try conv(6, 7, 64, 64, norm: 7), try conv(7, 7, 64, 64, norm: 8)]
        poolNorm = try norm(9, 1506)
        dense = (try w.tensor("dense/kernel", [1506, 200]), try w.tensor("dense/bias", [200]))
        denseNorm = try norm(10, 200)
        output = (try w.tensor("dense_1/kernel", [200, 50]), try w.tensor("dense_1/bias", [50]))
    }

    /// One patch (frames × bands, frame-major) to its tag probabilities and embedding.
    public func run(_ patch: [Float]) -> (tags: [Float], embedding: [Float]) {
        precondition(patch.count == Self.frames * Self.bands)
        let x = patch.map { $0 * input.scale[0] + input.shift[0] }
        var channels: [[Float]] = []   // each frames × filters
        for c in timbral { channels.append(Self.apply(c, to: x, width: Self.bands, before: 3)) }
        for c in temporal { channels.append(Self.apply(c, to: x, width: Self.bands, before: (c.length - 1) / 2)) }
        let front = Self.concatenate(channels, frames: Self.frames)           // 187 × 561
        let c1 = Self.apply(mid[0], to: front, width: 561, before: 3)
        let c2 = Self.add(Self.apply(mid[1], to: c1, width: 64, before: 3), c1)
        let c3 = Self.add(Self.apply(mid[2], to: c2, width: 64, before: 3), c2)
        let all = Self.concatenate([front, c1, c2, c3], frames: Self.frames)  // 187 × 753
        let width = all.count / Self.frames
        var pooled = [Float](repeating: 0, count: 2 * width)
        for j in 0..<width {
            var top = -Float.infinity, sum: Float = 0
            for t in 0..<Self.frames { let v = all[t * width + j]; top = max(top, v); sum += v }
            pooled[2 * j] = top * poolNorm.scale[2 * j] + poolNorm.shift[2 * j]
            pooled[2 * j + 1] = sum / Float(Self.frames) * poolNorm.scale[2 * j + 1] + poolNorm.shift[2 * j + 1]
        }
        var embedding = Self.affine(pooled, dense.kernel, dense.bias)
        for i in embedding.indices { embedding[i] = max(embedding[i], 0) * denseNorm.scale[i] + denseNorm.shift[i] }
        let tags = Self.affine(embedding, output.kernel, output.bias).map { 1 / (1 + Foundation.exp(-$0)) }
        return (tags, embedding)
    }

    /// A convolution over time, `before` zero frames ahead and the rest of its length after so that as many
    /// frames come out as go in, and over bands without padding; ReLU, batch normalisation and the maximum over
    /// bands: frames × filters.
    static func apply(_ c: Convolution, to x: [Float], width: Int, before: Int) -> [Float] {
        let frames = x.count / width, outWidth = width - c.width + 1, rows = frames * outWidth, k = c.length * c.width
        // The copies and the pass over the product go through raw pointers: with Swift's index checks they
        // took 40 % of the tagger's time beside the matrix product itself.
        var columns = [Float](repeating: 0, count: rows * k)
        columns.withUnsafeMutableBufferPointer { out in
            x.withUnsafeBufferPointer { input in
                for t in 0..<frames {
                    for dt in 0..<c.length {
                        let source = t + dt - before
                        guard source >= 0, source < frames else { continue }
                        for f in 0..<outWidth {
                            (out.baseAddress! + (t * outWidth + f) * k + dt * c.width)
                                .update(from: input.baseAddress! + source * width + f, count: c.width)
                        }
                    }
                }
            }
        }
        var product = [Float](repeating: 0, count: rows * c.filters)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(rows), Int32(c.filters), Int32(k), 1,
                    columns, Int32(k), c.kernel, Int32(c.filters), 0, &product, Int32(c.filters))
        var out = [Float](repeating: -.infinity, count: frames * c.filters)
        out.withUnsafeMutableBufferPointer { out in
            product.withUnsafeBufferPointer { product in
                c.bias.withUnsafeBufferPointer { bias in
                    c.norm.scale.withUnsafeBufferPointer { scale in
                        c.norm.shift.withUnsafeBufferPointer { shift in
                            for t in 0..<frames {
                                let target = out.baseAddress! + t * c.filters
                                for f in 0..<outWidth {
                                    let row = product.baseAddress! + (t * outWidth + f) * c.filters
                                    for j in 0..<c.filters {
                                        target[j] = max(target[j], max(row[j] + bias[j], 0) * scale[j] + shift[j])
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    static func concatenate(_ parts: [[Float]], frames: Int) -> [Float] {
        let widths = parts.map { $0.count / frames }, total = widths.reduce(0, +)
        var out = [Float](repeating: 0, count: frames * total)
        for t in 0..<frames {
            var at = t * total
            for (p, w) in zip(parts, widths) {
                for j in 0..<w { out[at + j] = p[t * w + j] }
                at += w
            }
        }
        return out
    }

    static func add(_ a: [Float], _ b: [Float]) -> [Float] { zip(a, b).map { $0 + $1 } }

    /// x · W + b, W inputs × outputs.
    static func affine(_ x: [Float], _ w: [Float], _ b: [Float]) -> [Float] {
        var y = b
        cblas_sgemv(CblasRowMajor, CblasTrans, Int32(x.count), Int32(b.count), 1, w, Int32(b.count), x, 1, 1, &y, 1)
        return y
    }
}
