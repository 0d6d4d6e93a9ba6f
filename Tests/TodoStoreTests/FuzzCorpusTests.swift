import Testing
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// The libFuzzer contracts of `Fuzz/Sources/FuzzRecords` and `FuzzJournal`, replayed on the shipped
/// corpora (`Fixtures/Fuzz/records`, `Fixtures/Fuzz/journal`) and on seeded mutants of them: what
/// `Store.decode` and `Recovery` run on a file of a `.todo` directory gives a record or a clean
/// error, never a trap, and a journal never stages a path outside the store.
@Suite("Store loaders fuzz corpus")
struct FuzzCorpusTests {
    static let dictionary = ["{", "}", "[", "]", ",", ":", "\"", "\\u", "\\ud83d", "null", "true", "-0", "1e309",
                             "\"format\":1", "\"id\":", "\"kind\":\"update\"", "\"item\":{", "\"sequence\":",
                             "\"writes\":[", "\"path\":\"../x\"", "\"content\":", "\"decision\":\"merge\""]

    static let loaders: [(String, @Sendable (JSONValue) throws(RecordError) -> Void)] = [
        ("Item", { v throws(RecordError) in _ = try ItemCopyFormat.item(v) }),
        ("PendingOperation", { v throws(RecordError) in _ = try OperationFile(json: v) }),
        ("OperationReference", { v throws(RecordError) in _ = try OperationReferenceFormat.reference(v) }),
        ("Conflict", { v throws(RecordError) in _ = try ConflictFile(json: v) }),
        ("Receipt", { v throws(RecordError) in _ = try ReceiptFile(json: v) }),
        ("TableConfig", { v throws(RecordError) in _ = try TableConfigFile(json: v) }),
        ("ReplicaConfig", { v throws(RecordError) in _ = try ConfigFile(json: v) }),
        ("ReplicaState", { v throws(RecordError) in _ = try StateFile(json: v) }),
        ("ItemFile", { v throws(RecordError) in _ = try ItemFile(path: "tables/t/items/x.json", json: v) }),
        ("UndoLog", { v throws(RecordError) in _ = try UndoFile(json: v) }),
        ("ServerTableList", { v throws(RecordError) in _ = try ServerTablesFile(json: v) }),
        ("journal", { v throws(RecordError) in try checkJournal(v) }),
    ]

    @Test("every corpus input keeps the contract", arguments: ["records", "journal"])
    func corpus(_ target: String) {
        for (name, bytes) in FuzzCorpus.inputs(target) {
            check(bytes, "\(target)/\(name)")
        }
    }

    @Test("3000 seeded mutants per corpus keep the contract", arguments: ["records", "journal"])
    func mutants(_ target: String) {
        let corpus = FuzzCorpus.inputs(target).map(\.bytes)
        for (index, input) in FuzzCorpus.mutants(of: corpus, count: 3000, seed: 0x57_0E, dictionary: Self.dictionary)
            .enumerated() {
            check(input, "\(target) mutant \(index) (seed 0x570E)")
        }
    }

    private func check(_ bytes: [UInt8], _ name: String) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            #expect(error.offset >= 0 && error.offset <= bytes.count && !error.reason.isEmpty, "\(name): \(error)")
            return
        }
        #expect((try? JSONValue.parse(value.compactBytes())) == value, "\(name): compact print does not parse back")
        #expect((try? JSONValue.parse(value.canonicalBytes())) == value, "\(name): canonical print does not parse back")
        for (loader, load) in Self.loaders {
            do { try load(value) } catch {
                #expect(!error.message.isEmpty, "\(name): \(loader) failed without a message")
            }
        }
    }

    /// Parses a journal and checks that no staged path can leave the store.
    private static func checkJournal(_ value: JSONValue) throws(RecordError) {
        for path in try Recovery.parseJournal(value).keys {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            #expect(!path.hasPrefix("/") && !path.utf8.contains(0)
                    && !segments.contains { $0.isEmpty || $0 == "." || $0 == ".." }, "unsafe path \(path.debugDescription)")
        }
    }
}
