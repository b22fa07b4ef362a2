/// The known word a mistyped one most likely meant (`verfy` → `verify`), for "did you mean"
/// hints: the smallest edit distance (insertions, deletions, substitutions and swaps of two
/// neighbours), at most 2 and less than half the word, ties to the first listed.
enum NearestWord {
    static func suggestion(for typed: String, among known: [String]) -> String? {
        let word = Array(typed.lowercased().prefix(64))
        guard !word.isEmpty else { return nil }
        var best: (word: String, distance: Int)? = nil
        for candidate in known where candidate != typed {
            let distance = Self.distance(word, Array(candidate.lowercased()))
            if distance <= 2, distance * 2 < max(word.count, 2) + 1, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.word
    }

    /// Optimal string alignment distance; `a` is at most 64 characters, so the table is small.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
