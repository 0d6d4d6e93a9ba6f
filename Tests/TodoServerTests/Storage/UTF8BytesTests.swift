import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// `UTF8Bytes` must order and match exactly as the generic `String.UTF8View` walks it replaced.
@Suite struct UTF8BytesTests {
    /// Prefixes, case, non-ASCII (precomposed and decomposed é, 2-, 3- and 4-byte scalars, bytes
    /// above 0x7F against ASCII), NUL, empty, and small (inline) against large (heap) strings.
    static let tricky: [String] = [
        "", "a", "A", "ab", "aB", "Ab", "abc", "b", "z", "Z", "_", "0", "9", "\u{0}", "a\u{0}", "a\u{0}b",
        "\u{e9}", "e\u{301}", "e", "E\u{301}", "\u{c9}", "\u{ff}", "\u{100}", "\u{7f}", "\u{80}", "\u{20ac}",
        "\u{FFFF}", "\u{10000}", "\u{1F600}", "\u{10FFFF}", "K", "\u{212A}", "k",
        "id", "ID", "iD", "createdAt", "__createdAt", "updatedAt", "version", "deleted", "text", "complete",
        "00000007-0000-4000-8000-000000000001", "00000007-0000-4000-8000-000000000002",
        "00000007-0000-4000-8000-00000000000", "00000007-0000-4000-8000-0000000000010",
        "fifteen-bytes-x", "sixteen-bytes-xy", "sixteen-bytes-xz", "sixteen-bytes-x\u{e9}",
        String(repeating: "a", count: 200), String(repeating: "a", count: 199) + "b",
    ]

    @Test func orderAndEqualityMatchTheUTF8View() {
        for a in Self.tricky {
            for b in Self.tricky {
                let less = a.utf8.lexicographicallyPrecedes(b.utf8)
                let equal = a.utf8.elementsEqual(b.utf8)
                #expect(UTF8Bytes.less(a, b) == less, "\(Array(a.utf8)) < \(Array(b.utf8))")
                #expect(UTF8Bytes.equal(a, b) == equal, "\(Array(a.utf8)) == \(Array(b.utf8))")
                let order = UTF8Bytes.compare(a, b)
                #expect((order < 0) == less && (order == 0) == equal, "\(Array(a.utf8)) <=> \(Array(b.utf8))")
            }
        }
    }

    @Test func substringsAndSharedStorageCompareByTheirOwnBytes() {
        let long = "prefix-00000007-0000-4000-8000-000000000001-suffix"
        let middle = String(long.dropFirst(7).dropLast(7))
        #expect(UTF8Bytes.equal(middle, "00000007-0000-4000-8000-000000000001"))
        #expect(UTF8Bytes.less(middle, "00000007-0000-4000-8000-000000000002"))
        #expect(!UTF8Bytes.less(middle, "00000007-0000-4000-8000-000000000001"))
    }

    @Test func rowKeysMatchByBytesOfTheLowerCaseForm() {
        #expect(StoredRowKey(id: "ABC-\u{c9}") == StoredRowKey(id: "abc-\u{e9}"))
        #expect(StoredRowKey(id: "\u{e9}") != StoredRowKey(id: "e\u{301}"), "canonically equivalent, different scalars")
        #expect(StoredRowKey(id: "a") != StoredRowKey(id: "a\u{0}"))
        var rows: [StoredRowKey: Int] = [:]
        for (i, id) in Self.tricky.enumerated() { rows[StoredRowKey(id: id), default: i] = i }
        let distinct = Set(Self.tricky.map { Array($0.lowercased().utf8) })
        #expect(rows.count == distinct.count)
    }

    @Test func idIndexKeepsTheUTF8OrderOfTrickyIDs() {
        var index = IDOrderIndex()
        var rng = SplitMix64(seed: 5)
        var ids = Self.tricky.filter { !$0.isEmpty }
        for i in 0..<3_000 { ids.append("x\(rng.next() % 10_000)" + (i % 5 == 0 ? "\u{e9}" : i % 7 == 0 ? "E\u{301}" : "")) }
        for id in ids { index.insert(id, key: StoredRowKey(id: id)) }
        for id in ids where id.hasSuffix("9") { index.remove(id) }
        var seen: [String] = []
        index.forEach { id, _ in seen.append(id); return true }
        var reference: [[UInt8]] = []
        for bytes in Set(ids.map { Array($0.utf8) }) where bytes.last != UInt8(ascii: "9") { reference.append(bytes) }
        reference.sort { $0.lexicographicallyPrecedes($1) }
        #expect(seen.map { Array($0.utf8) } == reference)
    }

    /// `UTF8Text.lowercased` (the server's row keys and table names) returns the string itself when lowering changes nothing; its bytes must be
    /// those of `String.lowercased()` for every string (upper case, non-ASCII, the Kelvin sign).
    @Test func lowercasedIsStringLowercased() {
        for s in Self.tricky + Self.tricky.map { $0.uppercased() } + ["00000000-0000-4000-8000-00000000000A", "ToDoItem", "todoitem"] + Self.everyByteAtEveryPlace {
            #expect(Array(UTF8Text.lowercased(s).utf8) == Array(s.lowercased().utf8), "\(s)")
        }
    }

    /// Every ASCII byte at each of the first 17 places of a lower-case string (the eight-byte
    /// steps and the tail), and a non-ASCII scalar at each place.
    static let everyByteAtEveryPlace: [String] = (0..<17).flatMap { place in
        (0..<128).map { byte in
            var s = Array(repeating: UInt8(ascii: "a"), count: 17)
            s[place] = UInt8(byte)
            return String(decoding: s, as: UTF8.self)
        } + [String(repeating: "a", count: place) + "\u{e9}" + String(repeating: "a", count: 16 - place)]
    }
}
