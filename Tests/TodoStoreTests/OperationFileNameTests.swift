import Testing
import TodoModel
@testable import TodoStore

/// Names are parsed on bytes when ASCII; they must be accepted and rejected exactly as the
/// `Character`-based parsing did (kept here as `reference`).
@Suite struct OperationFileNameTests {
    /// The parsing before the byte rules, verbatim.
    static func reference(_ name: String) -> OperationFileName? {
        guard name.hasSuffix(".json") else { return nil }
        let parts = name.dropLast(5).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, let seq = Int(parts[0]), seq >= 1, let kind = PendingOperation.Kind(rawValue: String(parts[1]))
        else { return nil }
        return OperationFileName(sequence: seq, kind: kind, table: String(parts[2]), encodedID: String(parts[3]))
    }

    @Test(arguments: [
        // accepted
        ("0000000042.update.todoitem.a%2Fb.json", true), ("1.insert.t.x.json", true), ("+1.delete.t.x.json", true),
        ("00000000000000000001.insert.t.x.json", true), ("9223372036854775807.insert.t.x.json", true),
        ("0000000001.insert..x.json", true), ("0000000001.insert.t..json", true), ("0000000001.insert...json", true),
        ("0000000001.insert.日本.x.json", true), ("0000000001.insert.t.e\u{301}.json", true),
        // rejected
        ("", false), (".json", false), ("json", false), ("0000000001.insert.t.x", false), ("0000000001.insert.t.x.JSON", false),
        ("0000000001.insert.t.x.json.", false), ("0000000001.insert.t.x.json\u{301}", false), ("0000000001.insert.t.json", false),
        ("0000000001.insert.t.x.y.json", false), ("0000000000.insert.t.x.json", false), ("-1.insert.t.x.json", false),
        ("-0.insert.t.x.json", false), ("+.insert.t.x.json", false), ("-.insert.t.x.json", false), (".insert.t.x.json", false),
        ("+-1.insert.t.x.json", false), (" 1.insert.t.x.json", false), ("1 .insert.t.x.json", false), ("0x1.insert.t.x.json", false),
        ("١.insert.t.x.json", false), ("9223372036854775808.insert.t.x.json", false),
        ("99999999999999999999999999.insert.t.x.json", false), ("0000000001.upsert.t.x.json", false),
        ("0000000001.Insert.t.x.json", false), ("0000000001..t.x.json", false), ("0000000001.insert.t.x..json", false),
        // a dot with a combining mark is one Character, not a separator
        ("0000000001.insert.t.\u{301}x.json", false), ("0000000001.insert.t\u{301}.x.json", true),
    ])
    func acceptsWhatItAcceptedBefore(name: String, accepted: Bool) {
        let parsed = OperationFileName(parsing: name)
        #expect((parsed != nil) == accepted)
        #expect(parsed == Self.reference(name))
    }

    @Test func agreesWithTheReferenceOnEveryCombination() {
        let sequences = ["", "0", "1", "+1", "-1", "+", "-", "1a", "0000000007", "+000000007", "12345678901",
                         "9223372036854775807", "9223372036854775808", "-9223372036854775808", "٣", "1\u{301}"]
        let kinds = ["insert", "update", "delete", "", "upsert", "insert ", "delet\u{301}e"]
        let tables = ["todoitem", "", "a.b", "日本", "\r\n"]
        let ids = ["x", "", "a%2Fb", "e\u{301}", "x~0123"]
        let endings = [".json", "json", ".JSON", ".json.", ".\u{301}json", ".json\u{301}", ""]
        var count = 0
        for s in sequences { for k in kinds { for t in tables { for i in ids { for e in endings {
            let name = "\(s).\(k).\(t).\(i)\(e)"
            let parsed = OperationFileName(parsing: name), expected = Self.reference(name)
            if parsed != expected { Issue.record("\(name.debugDescription): \(String(describing: parsed)) != \(String(describing: expected))") }
            if let parsed, let expected { #expect(parsed.name == expected.name) }
            count += 1
        } } } } }
        #expect(count == 19_600)
    }

    @Test func nameIsTheListedNameOnlyWhenThatIsCanonical() {
        let canonical = "0000000042.insert.todoitem.x.json"
        #expect(OperationFileName(parsing: canonical)?.name == canonical)
        #expect(OperationFileName(parsing: "42.insert.todoitem.x.json")?.name == canonical)
        #expect(OperationFileName(parsing: "+000000042.insert.todoitem.x.json")?.name == canonical)
        #expect(OperationFileName(parsing: "00000000042.insert.todoitem.x.json")?.name == canonical)
        #expect(OperationFileName(parsing: "12345678901.insert.todoitem.x.json")?.name == "12345678901.insert.todoitem.x.json")
    }

    /// `name` is formatted on bytes; it must spell what the string interpolation spelled.
    @Test func formatsWhatTheInterpolationFormatted() {
        let sequences = [0, 1, 7, 9, 10, 42, 999_999_999, 1_000_000_000, 9_999_999_999, 10_000_000_000, Int.max, -1, -42, Int.min]
        for s in sequences { for k in PendingOperation.Kind.allCases { for t in ["todoitem", "", "a.b", "日本"] {
            for i in ["x", "", "a%2Fb", "e\u{301}", "x~0123"] {
                let expected = "\(pad(s, 10)).\(k.rawValue).\(t).\(i).json"
                #expect(OperationFileName(sequence: s, kind: k, table: t, encodedID: i).name == expected)
                #expect(OperationFileName.format(s, k, t, i, prefix: "operations/") == "operations/" + expected)
            }
        } } }
    }

    @Test func changingAFieldChangesTheName() throws {
        var name = try #require(OperationFileName(parsing: "0000000042.insert.todoitem.x.json"))
        name.sequence = 7
        #expect(name.name == "0000000007.insert.todoitem.x.json")
        name.kind = .delete
        name.table = "t"
        name.encodedID = "y"
        #expect(name.name == "0000000007.delete.t.y.json")
        #expect(name == OperationFileName(sequence: 7, kind: .delete, table: "t", encodedID: "y"))
    }
}
