import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// The directory of the index of ids read as bytes (`DirectoryScan`): what `IDIndex` writes
/// reads back as the JSON parser reads it; what it does not write (an escape, other white space
/// aside) is left to the parser, and a damaged directory is no directory.
@Suite struct DirectoryScanTests {
    static let buckets: [(name: String, bound: String)] = [("1", ""), ("7", "rent"), ("3", "task 12"), ("12", "Ünïcode")]

    static func same(_ a: [(name: String, bound: String)]?, _ b: [(name: String, bound: String)]?) -> Bool {
        a?.map { $0.name + "|" + $0.bound } == b?.map { $0.name + "|" + $0.bound }
    }

    @Test func readsWhatTheIndexWrites() {
        let bytes = IDIndex.directoryJSON(Self.buckets).canonicalBytes()
        #expect(Self.same(DirectoryScan.buckets(bytes), Self.buckets))
        #expect(Self.same(DirectoryScan.buckets(Array(#"{"buckets":["1 ","2 b"]}"#.utf8)), [("1", ""), ("2", "b")]))
    }

    @Test func leavesEscapesAndDamageToTheParser() {
        for text in [#"{"buckets": ["1 ", "2 a\"b"]}"#,  // an escape: the parser reads it
                     #"{"buckets": ["1 ", "2 abcdefghijklmnopqrstuvwxyz\"b"]}"#,  // one past the first 16 bytes
                     "{\"buckets\": [\"1 \", \"2 abcdefghijklmnopqrstu\tvwxyz\"]}",  // a control character
                     #"{"buckets": ["1 ", "2 b", "3 a"]}"#,  // out of order
                     #"{"buckets": ["1 x"]}"#,  // the first bound is not ""
                     #"{"buckets": ["x ", "2 b"]}"#, #"{"buckets": ["1"]}"#, #"{"buckets": []}"#,
                     #"{"buckets": ["1 "]"#, #"{"buckets": ["1 "]} x"#, #"{"ids": ["1 "]}"#, ""] {
            #expect(DirectoryScan.buckets(Array(text.utf8)) == nil, "\(text)")
        }
    }

    /// Through the store: an escaped bound still reads (by the parser); a damaged directory is nil.
    @Test func theStoreReadsEitherWay() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        let path = store.layout.absolute(IDIndex.directoryFile("todoitem"))
        try store.fs.createDirectory(path.parentPath)
        try store.fs.writeFile(path, Array(#"{"buckets": ["1 ", "2 a\"b"]}"#.utf8), sync: false)
        #expect(Self.same(IDIndex.readBuckets("todoitem", in: store).map(Array.init), [("1", ""), ("2", "a\"b")]))
        try store.fs.writeFile(path, Array(#"{"buckets": ["1 ", "2 b", "3 a"]}"#.utf8), sync: false)
        #expect(IDIndex.readBuckets("todoitem", in: store) == nil)
    }
}
