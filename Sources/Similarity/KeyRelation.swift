import Analysis

/// How two keys sit for a DJ: the Camelot wheel, where neighbours a fifth apart and the relative
/// major/minor mix without a clash.
public enum KeyRelation: Sendable, Equatable {
    case same, relative, fifth, parallel
    /// Steps around the wheel (1...6), counting a change of mode as one more.
    case distant(Int)

    public init(_ a: MusicalKey, _ b: MusicalKey) {
        let ca = a.camelot, cb = b.camelot
        let around = min((ca.number - cb.number + 12) % 12, (cb.number - ca.number + 12) % 12)
        if a == b { self = .same }
        else if around == 0 { self = .relative }
        else if around == 1, a.minor == b.minor { self = .fifth }
        else if a.tonic == b.tonic { self = .parallel }
        else { self = .distant(around + (a.minor == b.minor ? 0 : 1)) }
    }

    /// Same, relative and a fifth apart mix without a clash.
    public var isCompatible: Bool {
        switch self {
        case .same, .relative, .fifth: return true
        case .parallel, .distant: return false
        }
    }

    public var phrase: String {
        switch self {
        case .same: return "same key"
        case .relative: return "relative keys"
        case .fifth: return "keys a fifth apart"
        case .parallel: return "parallel keys"
        case .distant(let steps): return "keys \(steps) steps apart"
        }
    }
}

extension MusicalKey {
    /// Camelot notation: 1...12 around the circle of fifths, A for minor, B for major (A minor = 8A, C = 8B).
    public var camelot: (number: Int, letter: Character) {
        let n = (7 * tonic + (minor ? 5 : 8)) % 12
        return (n == 0 ? 12 : n, minor ? "A" : "B")
    }

    public var camelotName: String { "\(camelot.number)\(camelot.letter)" }
}
