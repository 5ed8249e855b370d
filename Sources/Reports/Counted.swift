/// A count with its noun, in the singular for one: "1 track", "2 tracks".
func counted(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }
