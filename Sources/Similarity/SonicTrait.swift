import Foundation

/// A quality a listener can name, read off the feature vector: what cluster names, explanations and
/// "why" speak of. Each is the mean z-score of the dimensions it reads (0 = like the library's average).
public struct SonicTrait: Sendable, Equatable {
    public let index: Int
    /// The noun, as in "similar brightness".
    public let noun: String
    /// The adjectives a cluster takes when it sits well above or below the library on this trait.
    public let high: String
    public let low: String
    let dimensions: [String]

    public static let brightness = SonicTrait(index: 0, noun: "brightness", high: "Bright", low: "Dark",
                                              dimensions: ["centroid_oct_mean", "rolloff_oct_mean"])
    public static let percussiveness = SonicTrait(index: 1, noun: "percussiveness", high: "Percussive", low: "Smooth",
                                                  dimensions: ["onset_rate", "attack", "percussive_log"])
    public static let noisiness = SonicTrait(index: 2, noun: "noisiness", high: "Gritty", low: "Clean",
                                             dimensions: ["flatness_log_mean"])
    /// Spectral contrast: clear peaks over quiet valleys (few voices, acoustic) or a filled spectrum.
    public static let clarity = SonicTrait(index: 3, noun: "texture", high: "Sparse", low: "Dense",
                                           dimensions: (1...7).map { "contrast\($0)_mean" })
    public static let tonality = SonicTrait(index: 4, noun: "tonal clarity", high: "Tonal", low: "Drifting",
                                            dimensions: ["key_strength"])
    public static let mode = SonicTrait(index: 5, noun: "mode", high: "Minor", low: "Major", dimensions: ["minor"])
    public static let tempo = SonicTrait(index: 6, noun: "tempo", high: "Fast", low: "Slow",
                                         dimensions: [SonicSpace.tempoDimension])
    /// Loudness is not in the distance (mastering level says little about the music) but a shelf of quiet
    /// recordings is worth naming.
    public static let loudness = SonicTrait(index: 7, noun: "loudness", high: "Loud", low: "Soft", dimensions: [])

    public static let all: [SonicTrait] = [brightness, percussiveness, noisiness, clarity, tonality, mode, tempo, loudness]

    /// Traits of every track, row-major; `standard` holds the space's unweighted z-scores.
    static func values(tracks: [TrackInput], names: [String], standard: [Double]) -> [Float] {
        let d = names.count
        let columns = all.map { t in t.dimensions.compactMap { names.firstIndex(of: $0) } }
        let loud = SonicSpace.standardise(tracks.map { $0.lufs ?? 0 }, present: tracks.map { $0.lufs != nil },
                                              rows: tracks.count, columns: 1)
        var out = [Float](repeating: 0, count: tracks.count * all.count)
        for i in tracks.indices {
            for t in all {
                let value: Double
                if t == Self.loudness {
                    value = loud[i]
                } else {
                    let cols = columns[t.index]
                    value = cols.isEmpty ? 0 : cols.reduce(0) { $0 + standard[i * d + $1] } / Double(cols.count)
                }
                out[i * all.count + t.index] = Float(value)
            }
        }
        return out
    }

    /// "bright (+1.2σ)": how far a value sits from the library's average, in words a person reads.
    public func describe(_ z: Double) -> String {
        String(format: "%@ (%@%.1fσ)", (z >= 0 ? high : low).lowercased(), z >= 0 ? "+" : "−", abs(z))
    }
}
