import Foundation

/// A track's sound as one vector of named dimensions: what clustering and similarity read. The names and
/// their order belong to a version of the `features` analyzer; a changed set is a new analyzer version.
public struct FeatureVector: Sendable, Equatable {
    public static let names: [String] =
        (1...20).map { "mfcc\($0)_mean" } + (1...20).map { "mfcc\($0)_std" }
        + ["centroid_oct_mean", "rolloff_oct_mean", "flatness_log_mean",
           "centroid_oct_std", "rolloff_oct_std", "flatness_log_std"]
        + (1...7).map { "contrast\($0)_mean" }
        + ["onset_rate", "attack", "percussive_log"]
        + (0..<12).map { "chroma_rel\($0)" }
        + ["key_strength", "minor"]

    public var values: [Float]

    public init(values: [Float]) { self.values = values }

    public subscript(name: String) -> Float? {
        Self.names.firstIndex(of: name).flatMap { $0 < values.count ? values[$0] : nil }
    }

    /// Little-endian float32s, the stored form.
    public var encoded: Data { FloatBlob.encode(values) }

    public init?(encoded data: Data) {
        guard let values = FloatBlob.decode(data) else { return nil }
        self.values = values
    }
}
