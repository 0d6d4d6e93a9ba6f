#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// The bytes the store writes for each kind of file, compared with golden files under
/// `Fixtures/Output/DiskFormat/` recorded before the disk format had types of its own (issue 16
/// item 5): a change of the format layer that changes a byte on disk fails here.
/// `TODO_RECORD_SNAPSHOTS=1` re-records (only for a deliberate format change, with a migration).
@Suite struct DiskFormatGoldenTests {
    typealias S = DiskFormatSamples

    @Test func everyKindOfFileIsWrittenAsBefore() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let root = dir.sub(".todo")
        try Store.create(at: root, config: S.config, fs: LocalFileSystem())
        let store = try Store.open(at: root, fs: LocalFileSystem(), writable: true, command: "test")
        defer { store.close() }
        var tx = try store.transaction()
        tx.putItem(S.item, table: "todoitem")
        tx.putItem(Item(id: "plain", fields: ["text": "never synced"]), table: "todoitem")
        tx.putOperation(S.operation)
        tx.putOperation(S.insert)
        tx.putConflict(S.conflict)
        tx.putConflict(S.rejection)
        let receipt = tx.addReceipt(S.receipt)
        let bare = tx.addReceipt(S.bareReceipt)
        tx.putTableConfig(S.table)
        tx.putTableConfig(TableConfig(name: "notes"))
        tx.putUndoLog(S.undo)
        tx.putServerTables(S.serverTables)
        tx.setNextSequence(43)
        try store.commit(tx)

        let files: [(String, String)] = [
            ("item", store.layout.item("todoitem", S.item.id)),
            ("item-unsynced", store.layout.item("todoitem", "plain")),
            ("operation-update", store.layout.operation(S.operation)),
            ("operation-insert", store.layout.operation(S.insert)),
            ("conflict", store.layout.conflict("todoitem", S.conflict.id)),
            ("conflict-rejected", store.layout.conflict("notes", "n1")),
            ("receipt-merge", store.layout.receipt(receipt)),
            ("receipt-both-deleted", store.layout.receipt(bare)),
            ("config", StoreLayout.configFile),
            ("state", StoreLayout.stateFile),
            ("table", store.layout.tableConfig("todoitem")),
            ("table-new", store.layout.tableConfig("notes")),
            ("undo", StoreLayout.undoFile),
            ("server-tables", StoreLayout.serverTablesFile),
        ]
        var environment: [String: String] = [:]
        if let value = getenv("TODO_RECORD_SNAPSHOTS") { environment["TODO_RECORD_SNAPSHOTS"] = String(cString: value) }
        for (kind, relative) in files {
            let bytes = try #require(try LocalFileSystem().readFile(root.appendingPath(relative)), "\(relative) was written")
            let text = "\(relative)\n" + String(decoding: bytes, as: UTF8.self)
            if let failure = Snapshot.check(text, named: "DiskFormat/\(kind)", environment: environment) {
                Issue.record("\(failure)")
            }
        }
    }
}
