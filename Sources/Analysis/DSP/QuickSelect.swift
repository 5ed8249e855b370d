/// Order statistics without a full sort: after `select`, `v[k]` holds the value it would hold if
/// `v[range]` were sorted, everything before it in the range is ≤ it and everything after ≥ it. Linear on
/// average (Hoare partitioning around a median of three), where a sort is n log n.
enum QuickSelect {
    static func select(_ v: UnsafeMutableBufferPointer<Float>, _ range: Range<Int>, k: Int) {
        var lo = range.lowerBound, hi = range.upperBound - 1
        while hi > lo {
            let mid = lo + (hi - lo) / 2
            if v[mid] < v[lo] { v.swapAt(mid, lo) }
            if v[hi] < v[lo] { v.swapAt(hi, lo) }
            if v[hi] < v[mid] { v.swapAt(hi, mid) }
            let pivot = v[mid]
            var i = lo, j = hi
            while i <= j {
                while v[i] < pivot { i += 1 }
                while v[j] > pivot { j -= 1 }
                if i <= j {
                    v.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { return }
        }
    }

    /// Puts the `n` smallest values first and the `n` largest last, each run sorted ascending; the middle
    /// is left in no order. Needs 2n ≤ v.count.
    static func sortExtremes(_ v: UnsafeMutableBufferPointer<Float>, n: Int) {
        guard n > 0 else { return }
        let count = v.count
        select(v, 0..<count, k: n - 1)
        select(v, n..<count, k: count - n)
        var low = UnsafeMutableBufferPointer(rebasing: v[0..<n]), high = UnsafeMutableBufferPointer(rebasing: v[(count - n)..<count])
        low.sort()
        high.sort()
    }
}
