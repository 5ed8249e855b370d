import Foundation

/// Spectral flatness (Wiener entropy): the geometric over the arithmetic mean of a power spectrum's bins,
/// about 0.56 for white noise and near 0 where a few partials hold the energy. `floor` is added to each bin
/// before its log, so empty bins do not send the geometric mean to zero.
enum SpectralFlatness {
    static func of(_ p: UnsafeBufferPointer<Float>, bins: ClosedRange<Int>, total: Float, floor: Float) -> Double {
        let logSum = VectorOps.sumOfLogs(p.baseAddress! + bins.lowerBound, bins.count, floor: floor)
        let count = Double(bins.count)
        return exp(logSum / count) / (Double(total) / count)
    }
}
