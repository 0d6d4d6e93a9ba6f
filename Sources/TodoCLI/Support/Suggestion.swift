/// "Did you mean" for a mistyped command or option: the known names closest to the typo by edit
/// distance (insertions, deletions, substitutions, and a swap of two neighbours counts as one),
/// as git does for commands.
enum Suggestion {
    /// The names nearest the typo, when within distance 2 (1 for a typo of up to 3 characters),
    /// in their given order; a name that starts with the typo (3 or more characters) counts as
    /// that far. Only the nearest are kept: `lsit` is one swap from `list`, two edits from `init`.
    static func closest(to typo: String, among names: [String]) -> [String] {
        let limit = typo.count <= 3 ? 1 : 2
        let scored = names.compactMap { name -> (String, Int)? in
            let d = distance(typo, name)
            if d <= limit { return (name, d) }
            if typo.count >= 3 && name.hasPrefix(typo) { return (name, limit) }
            return nil
        }
        guard let best = scored.map(\.1).min() else { return [] }
        return scored.filter { $0.1 == best }.map(\.0)
    }

    /// The hint line: "did you mean 'list'?" or "did you mean one of 'done', 'undone'?"; nil when nothing is close.
    static func hint(for typo: String, among names: [String], prefix: String = "") -> String? {
        let found = closest(to: typo, among: names)
        guard !found.isEmpty else { return nil }
        if found.count == 1 { return "did you mean '\(prefix)\(found[0])'?" }
        return "did you mean one of " + found.map { "'\(prefix)\($0)'" }.joined(separator: ", ") + "?"
    }

    /// Optimal string alignment distance over characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var d = Array(repeating: Array(repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }
}
