import CFFTW
import Foundation

/// FFTW's planner is not thread-safe; only execution is. Plans are made once per size, under this lock,
/// and
/// executed with each analyzer's own arrays.
private final class PlanCache: @unchecked Sendable {
    private let lock = NSLock()
    private var plans: [Int: fftwf_plan] = [:]

    func plan(size: Int) -> fftwf_plan {
        lock.lock()
        defer { lock.unlock() }
        if let plan = plans[size] { return plan }
        let input = fftwf_alloc_real(size)!
        let output = fftwf_alloc_complex(size / 2 + 1)!
        let plan = fftwf_plan_dft_r2c_1d(Int32(size), input, output, UInt32(FFTW_ESTIMATE))!
        fftwf_free(input)
        fftwf_free(output)
        plans[size] = plan
        return plan
    }
}

private let planCache = PlanCache()

/// A forward real FFT of a fixed size with its own (FFTW-aligned) buffers.
final class RealFFT {
    let size: Int
    let input: UnsafeMutablePointer<Float>
    let output: UnsafeMutablePointer<fftwf_complex>
    private let plan: fftwf_plan

    init(size: Int) {
        self.size = size
        input = fftwf_alloc_real(size)
        output = fftwf_alloc_complex(size / 2 + 1)
        input.initialize(repeating: 0, count: size)
        plan = planCache.plan(size: size)
    }

    deinit {
        fftwf_free(input)
        fftwf_free(output)
    }

    /// `input[i] = samples[i - positions.lowerBound] · window[i]` over `positions`: the framers' windowing.
    func loadWindowed(_ samples: UnsafePointer<Float>, window: [Float], positions: Range<Int>) {
        window.withUnsafeBufferPointer { w in
            for i in positions { input[i] = samples[i - positions.lowerBound] * w[i] }
        }
    }

    /// Transforms `input`; fills `power` (size/2 + 1 bins) with |X|².
    func powerSpectrum(into power: UnsafeMutablePointer<Float>) {
        fftwf_execute_dft_r2c(plan, input, output)
        let bins = size / 2 + 1
        let raw = UnsafeMutableRawPointer(output).assumingMemoryBound(to: Float.self)
        for k in 0..<bins {
            let re = raw[2 * k], im = raw[2 * k + 1]
            power[k] = re * re + im * im
        }
    }

    /// The power a full-scale sine puts in its bin of a Hann-windowed `size`-point transform: (N/4)². The
    /// reference every spectrum level and silence gate is measured from.
    static func fullScaleSinePower(size: Int) -> Float { Float(size * size) / 16 }

    static func hannWindow(_ n: Int) -> [Float] {
        (0..<n).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n))) }
    }
}
