import TodoModel
import TodoStore

/// How ids are shown to people: the shortest prefix that no other id of the table starts with,
/// and at least `minimum` characters (as git and jj show hashes). Every shown prefix is accepted
/// back by `StoreAccess.resolveID` as long as no new id starting with it arrives.
///
/// Four is the floor: ids here are mostly UUIDs, and in a table of a few hundred items four hex
/// digits are nearly always unique (git's 7 guards a history of millions of objects, where
/// scripts keep old hashes for years). An id too short to cut, or one that is the start of
/// another id (`rent` and `rental`), is shown whole: typing it in full names it exactly.
struct ShortIDs {
    static let minimum = 4
    /// Characters to show, by comparison key.
    private let lengths: [String: Int]
    private let keys: [[Unicode.Scalar]]

    init(keys: some Sequence<String>) {
        let sorted = Array(Set(keys)).map { Array($0.unicodeScalars) }.sorted { $0.lexicographicallyPrecedes($1) { $0.value < $1.value } }
        var lengths: [String: Int] = [:]
        for (i, key) in sorted.enumerated() {
            var shared = 0
            if i > 0 { shared = max(shared, Self.common(key, sorted[i - 1])) }
            if i + 1 < sorted.count { shared = max(shared, Self.common(key, sorted[i + 1])) }
            lengths[String(String.UnicodeScalarView(key))] = min(key.count, max(Self.minimum, shared + 1))
        }
        self.lengths = lengths
        self.keys = sorted
    }

    /// The ids a table of the store knows (items, pending operations, conflicts).
    static func load(_ store: Store, table: String) throws(CLIError) -> ShortIDs {
        do { return ShortIDs(keys: try store.knownIDKeys(table: table)) } catch { throw .store(error) }
    }

    /// Short ids good for `id` alone: the same length as among all the table's ids (the longest
    /// prefix it shares with another id decides it), from one pass over the names instead of a
    /// sort of them all. An empty set when the read fails.
    static func around(_ id: String, table: String, in store: Store) -> ShortIDs {
        let key = ItemID.key(id)
        guard let closest = try? store.closestKnownIDKey(to: key, table: table) else { return ShortIDs(keys: [key]) }
        return ShortIDs(keys: [key, closest])
    }

    /// The id's short form, in its own spelling when lower-casing kept its length.
    func of(_ id: String) -> String {
        let key = ItemID.key(id)
        let n = lengths[key] ?? fallback(Array(key.unicodeScalars))
        let spelled = key.unicodeScalars.count == id.unicodeScalars.count ? id : key
        return String(String.UnicodeScalarView(spelled.unicodeScalars.prefix(n)))
    }

    /// An id the table did not know when this was built (a new item): compared with every key.
    private func fallback(_ key: [Unicode.Scalar]) -> Int {
        let shared = keys.map { Self.common(key, $0) }.max() ?? 0
        return min(key.count, max(Self.minimum, shared + 1))
    }

    private static func common(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var n = 0
        while n < a.count && n < b.count && a[n] == b[n] { n += 1 }
        return n
    }
}

/// The first 8 characters of an id, for messages that have no table's ids at hand (push and pull
/// reports, conflict hints); `ShortIDs` is the form for everything that lists items.
enum ShortID {
    static func of(_ id: String) -> String {
        id.count <= 8 ? id : String(id.prefix(8))
    }
}
