import Testing
import TodoBasics
import TodoModel
@testable import TodoStore

/// Issue 21 item 3: a bucket or page of the index of pending operations updated as bytes
/// (`PendingNames`) is the file `PendingIndex.json` writes for the same names, and the index of
/// ids' directory read as bytes (`BucketDirectory`) finds the bucket the Strings would.
@Suite struct PendingNamesTests {
    static func name(_ sequence: Int, _ id: String) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: 10 - digits.count) + digits + ".update.todoitem." + id + ".json"
    }

    @Test func updatesAsTheEncoderWrites() throws {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<50 {
            let all = (0..<(round % 7 == 0 ? 1 : 40)).map { Self.name(Int.random(in: 1...99_999, using: &rng), "id-\($0)") }
            let start = Set(all.filter { _ in Bool.random(using: &rng) })
            let removed = Set(start.filter { _ in Int.random(in: 0..<4, using: &rng) == 0 }).union(all.prefix(2))
            let added = Set(all.filter { _ in Int.random(in: 0..<5, using: &rng) == 0 })
            let file = start.isEmpty ? nil : PendingIndex.json(Array(start)).canonicalBytes()
            let names = try #require(PendingNames(file))
            #expect(Set(names.strings) == start)
            let expected = start.subtracting(removed).union(added)
            switch names.updated(removing: removed, adding: added) {
            case .write(let bytes): #expect(bytes == PendingIndex.json(Array(expected)).canonicalBytes())
            case .remove: #expect(expected.isEmpty)
            case .unchanged: #expect(expected == start)
            case .encodeValues: Issue.record("plain names need no values")
            }
        }
    }

    @Test func leavesEscapesToTheEncoderAndRefusesDamage() throws {
        let odd = #"0000000001.update.todoitem.a"b.json"#
        let names = try #require(PendingNames(PendingIndex.json([odd, Self.name(2, "c")]).canonicalBytes()))
        #expect(Set(names.strings) == [odd, Self.name(2, "c")])
        #expect(names.updated(removing: [Self.name(2, "c")], adding: []) == .encodeValues([odd]))
        #expect(PendingNames(Array(#"{"operations": ["a", 3]}"#.utf8)) == nil)
        #expect(PendingNames(Array("{".utf8)) == nil)
        #expect(PendingNames(nil)?.strings == [])
        // An operation rewritten under its name (an edit folded into it) leaves the file alone.
        #expect(names.updated(removing: [odd], adding: [odd]) == .unchanged)
        #expect(names.updated(removing: ["0000000009.delete.todoitem.x.json"], adding: []) == .unchanged)
    }

    @Test func theDirectoryFindsBucketsAsStringsDo() {
        let list: [(name: String, bound: String)] = [("1", ""), ("7", "c"), ("3", "task 12"), ("12", "task 3"), ("9", "Ünïcode")]
        let read = DirectoryScan.directory(IDIndex.directoryJSON(list).canonicalBytes())!
        #expect(read.map { $0.name + "|" + $0.bound } == list.map { $0.name + "|" + $0.bound })
        #expect(BucketDirectory(list).map { $0.name } == list.map(\.name))
        #expect(read.largestName == 12)
        for key in ["", "a", "c", "c0", "task 1", "task 12", "task 2", "task 4", "Z", "Ü", "Ünïcode", "ü", "\u{10FFFF}"] {
            #expect(read.position(of: key) == IDIndex.position(of: key, in: list), "\(key)")
            #expect(BucketDirectory(list).position(of: key) == IDIndex.position(of: key, in: list), "\(key)")
        }
    }
}
