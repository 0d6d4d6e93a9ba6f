import Testing
import TodoBasics
import TodoModel
import TodoStore
import TodoTestSupport

/// Stores with conflicts, built in temp folders the way push and pull would leave them: local
/// changes through the CLI, then the records push writes (conflict file, in-flight marker) through
/// the store API, in one commit each.
enum ConflictStores {
    static let d265 = "D265929E-B17B-42D1-8FAB-D0ADF26486FA"
    static let d2a1 = "d2a1c3f0-0000-4000-8000-000000000002"
    static let d265Conflict = ".todo/conflicts/todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json"

    /// A server copy at version `version` (the wire text of a small integer), as a 412 body gives it.
    static func server(_ id: String, _ fields: [String: JSONValue], version: String = "AAAAAAAAAAI=",
                       deleted: Bool = false) -> Item {
        Item(id: id, fields: fields, system: SystemProperties(createdAt: "2024-05-01T09:00:00.000Z",
                                                              updatedAt: "2024-05-02T08:12:00.000Z",
                                                              version: version, deleted: deleted))
    }

    static func open(_ dir: String) throws -> Store {
        try Store.open(at: dir.appendingPath(".todo"), fs: LocalFileSystem(), writable: true, command: "test")
    }

    /// Records a conflict for the first pending operation of `id`, clearing its marker (§4.6.4).
    static func recordConflict(_ dir: String, id: String, table: String = "todoitem", server: Item?,
                               reason: Conflict.Reason = .conflict, fields: [String] = [], resolved: JSONValue = .null) throws {
        let store = try open(dir)
        defer { store.close() }
        let ops = try store.operations(table: table, id: id)
        var op = try #require(ops.first, "no pending operation for \(id)")
        let item = try store.item(table: table, id: id)
        var tx = try store.transaction()
        if op.attempted {
            op.attempted = false
            tx.putOperation(op)
        }
        tx.putConflict(Conflict(table: table, id: op.id, reason: reason, operation: op.reference,
                                status: reason == .rejected ? 400 : (server == nil || server!.isDeleted ? 404 : 412),
                                detectedBy: .push, detectedAt: "2024-05-02T08:15:30.120Z",
                                message: reason == .rejected ? "bad value" : nil, base: op.base, client: item,
                                server: server, fields: fields, resolved: resolved))
        try store.commit(tx)
    }

    /// Marks the item's operations as sent (`attempted`), as a push killed mid-request leaves them.
    static func seal(_ dir: String, id: String, table: String = "todoitem") throws {
        let store = try open(dir)
        defer { store.close() }
        var tx = try store.transaction()
        for var op in try store.operations(table: table, id: id) {
            op.attempted = true
            op.attemptedAt = "2024-05-02T08:15:00.000Z"
            tx.putOperation(op)
        }
        try store.commit(tx)
    }

    /// Writes `resolved` into the item's conflict file, as a user editing it would.
    static func setResolved(_ dir: String, id: String, _ resolved: JSONValue, table: String = "todoitem") throws {
        let store = try open(dir)
        defer { store.close() }
        var c = try #require(try store.conflict(table: table, id: id))
        c.resolved = resolved
        var tx = try store.transaction()
        tx.putConflict(c)
        try store.commit(tx)
    }

    /// Replaces a table's queries (filters and tokens), as pulls would have stored them.
    static func setQueries(_ dir: String, table: String = "todoitem", _ queries: [String: TableConfig.Query]) throws {
        let store = try open(dir)
        defer { store.close() }
        var config = try #require(try store.tableConfig(table))
        config.queries = queries
        var tx = try store.transaction()
        tx.putTableConfig(config)
        try store.commit(tx)
    }

    /// Three conflicts in the synced fixture: d265 changed on both sides with a clash on `text`,
    /// d2a1 changed here with `complete` changed there (clean merge), and a new item `t3` added on
    /// both sides with equal texts (clean merge with an empty base).
    static func three(_ dir: String) throws {
        Fixtures.copy("Stores/synced", to: dir)
        let cli = CLIHarness(directory: dir)
        #expect(cli.run("edit", "d265", "--text", "I love Azure!").code == 0)
        #expect(cli.run("edit", "d2a1", "--text", "Pay the rent").code == 0)
        #expect(cli.run("add", "Third", "--id", "t3").code == 0)
        try recordConflict(dir, id: d265, server: server(d265, ["text": "I love Mobile Services!", "complete": false]), fields: ["text"])
        try recordConflict(dir, id: d2a1, server: server(d2a1, ["text": "Pay rent", "complete": false, "note": "call Bob"],
                                                         version: "AAAAAAAAAAQ="))
        try recordConflict(dir, id: "t3", server: server("t3", ["text": "Third", "complete": false, "priority": 1]))
    }

    /// Copies a folder tree (tests build a store once, then copy it for every crash step).
    static func copyTree(_ source: String, _ destination: String) {
        let fs = LocalFileSystem()
        try? fs.createDirectory(destination)
        for name in (try? fs.listDirectory(source)) ?? [] where name != "lock" {
            let from = source.appendingPath(name), to = destination.appendingPath(name)
            if fs.isDirectory(from) {
                copyTree(from, to)
            } else if let bytes = (try? fs.readFile(from)) ?? nil {
                try? fs.writeFile(to, bytes, sync: false)
            }
        }
    }

    /// Reads a record of the store in `dir` (relative to `.todo/`).
    static func record(_ dir: String, _ relative: String) -> JSONValue? {
        guard let bytes = (try? LocalFileSystem().readFile(dir.appendingPath(".todo").appendingPath(relative))) ?? nil else { return nil }
        return try? JSONValue.parse(bytes)
    }

    /// The names in a folder of the store, sorted.
    static func names(_ dir: String, _ relative: String) -> [String] {
        ((try? LocalFileSystem().listDirectory(dir.appendingPath(".todo").appendingPath(relative))) ?? nil)?
            .filter { !$0.hasPrefix(".") }.sorted() ?? []
    }
}
