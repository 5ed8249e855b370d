/// The 50 tags of MusiCNN's Million Song Dataset model, in the order of its outputs (musicnn's MSD_LABELS).
public enum MusicnnTags {
    public static let names = [
        "rock", "pop", "alternative", "indie", "electronic", "female vocalists", "dance", "00s", "alternative rock", "jazz",
        "beautiful", "metal", "chillout", "male vocalists", "classic rock", "soul", "indie rock", "Mellow", "electronica", "80s",
        "folk", "90s", "chill", "instrumental", "punk", "oldies", "blues", "hard rock", "ambient", "acoustic",
        "experimental", "female vocalist", "guitar", "Hip-Hop", "70s", "party", "country", "easy listening", "sexy", "catchy",
        "funk", "electro", "heavy metal", "Progressive rock", "60s", "rnb", "indie pop", "sad", "House", "happy",
    ]

    /// The `count` most probable tags, most probable first.
    public static func top(_ probabilities: [Float], count: Int) -> [(tag: String, probability: Float)] {
        zip(names, probabilities).sorted { $0.1 > $1.1 }.prefix(count).map { ($0.0, $0.1) }
    }

    /// The tags that say how music feels rather than what it is: what `tags write-analysis --mood` writes.
    public static let moods: Set<String> = ["happy", "sad", "Mellow", "chill", "chillout", "beautiful", "sexy", "catchy",
                                            "party", "easy listening"]

    /// A tag as a sentence says it: "mellow", "heavy metal", "r&b".
    public static func word(_ index: Int) -> String {
        names[index] == "rnb" ? "r&b" : names[index].lowercased()
    }

    /// A tag as a name says it: "Mellow", "Heavy Metal", "R&B", "Hip-Hop".
    public static func title(_ index: Int) -> String {
        if names[index] == "rnb" { return "R&B" }
        return names[index].split(separator: " ").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    /// The first `count` of `ranked` that say different things: a tag whose words begin, or are begun by,
    /// one already taken ("electronica" after "electronic", "female vocalist" after "female vocalists",
    /// "chillout" after "chill"), or that a taken one narrows ("metal" after "heavy metal"), adds nothing;
    /// one that narrows a taken one ("heavy metal" after "metal") takes its place.
    public static func distinct(_ ranked: [Int], count: Int) -> [Int] {
        var taken: [Int] = []
        for i in ranked {
            let w = word(i)
            if let broader = taken.firstIndex(where: { w.hasSuffix(" " + word($0)) }) {
                taken[broader] = i
                continue
            }
            if taken.contains(where: { let t = word($0); return t.hasPrefix(w) || w.hasPrefix(t) || t.hasSuffix(" " + w) }) {
                continue
            }
            if taken.count < count { taken.append(i) }
        }
        return taken
    }
}
