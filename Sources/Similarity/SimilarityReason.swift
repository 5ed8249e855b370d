import Analysis
import Foundation

extension SonicSpace {
    /// A short why for two tracks being near: "same key, 3 BPM apart, similar brightness". Key and tempo
    /// (when both tempi are trusted) first (what a DJ checks), then up to two named traits on which the two
    /// are closest, or the group that is closest when no named trait is.
    public func why(_ a: Int, _ b: Int) -> String {
        var parts: [String] = []
        if let ka = key(a), let kb = key(b) {
            let relation = KeyRelation(ka, kb)
            if relation.isCompatible { parts.append(relation.phrase) }
        }
        // Only tempi the analysis is sure of: "3 BPM apart" from a tempo that may be twice the truth misleads.
        if tracks[a].tempoIsTrusted, tracks[b].tempoIsTrusted, let ta = tracks[a].bpm, let tb = tracks[b].bpm {
            let tempo = TempoRelation(ta, tb)
            if tempo.octave == 0, abs(tempo.percent) <= 8 {
                let apart = abs(tb - ta)
                parts.append(apart < 0.5 ? "same tempo" : String(format: "%.0f BPM apart", apart))
            } else if tempo.octave != 0, tempo.isMatchable {
                parts.append(tempo.octave > 0 ? "double tempo" : "half tempo")
            }
        }
        if basis == .embedding {
            // The tags both stand out on, as a listener would say it: "both mellow and acoustic".
            // Tags both hold at 0.1 or more and half a standard deviation above the library, most held first.
            let shared = MusicnnTags.names.indices
                .filter { min(tagScore(a, $0), tagScore(b, $0)) >= 0.5 && min(tag(a, $0), tag(b, $0)) >= 0.1 }
                .map { ($0, min(tag(a, $0), tag(b, $0))) }.sorted { ($0.1, $1.0) > ($1.1, $0.0) }
            let words = MusicnnTags.distinct(shared.map(\.0), count: 2).map { MusicnnTags.word($0) }
            if !words.isEmpty {
                parts.append("both " + words.joined(separator: " and "))
                return parts.joined(separator: ", ")
            }
        }
        let timbreTraits: [SonicTrait] = [.brightness, .percussiveness, .noisiness, .clarity]
        let close = timbreTraits.map { ($0, abs(trait(a, $0) - trait(b, $0))) }
            .filter { $0.1 < 0.35 }.sorted { $0.1 < $1.1 }.prefix(2)
        if !close.isEmpty {
            parts.append("similar " + close.map(\.0.noun).joined(separator: " and "))
        } else if basis == .embedding {
            parts.append("alike in the tagger's embedding")
        } else {
            let group = Group.allCases.min { groupDistance(a, b, $0) < groupDistance(a, b, $1) }!
            parts.append("closest in \(group.rawValue)")
        }
        return parts.joined(separator: ", ")
    }
}
