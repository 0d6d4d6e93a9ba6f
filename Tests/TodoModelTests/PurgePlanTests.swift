import Testing
@testable import TodoModel

/// sync.md §6: refusal, --force, the whole table, and one query.
@Suite struct PurgePlanTests {
    static let now = "2024-05-03T10:00:00.000Z"

    static func synced(_ id: String, _ text: String, complete: Bool, version: String = "v1") -> Item {
        Item(id: id, fields: ["text": .string(text), "complete": .bool(complete)],
             system: SystemProperties(createdAt: "2024-05-01T09:00:00.000Z", updatedAt: "2024-05-01T09:00:00.000Z", version: version))
    }

    static let table = TableConfig(name: "todoitem", cursorMode: .skip, queries: [
        "default": .init(filter: nil, lastPullAt: "2024-05-02T00:00:00.000Z", token: .init(updatedAt: "2024-05-01T09:00:00.000Z", id: nil)),
        "open": .init(filter: "complete eq false", lastPullAt: "2024-05-02T00:00:00.000Z", token: .init(updatedAt: "2024-05-01T09:00:00.000Z", id: nil)),
        "fresh": .init(filter: nil),
    ])

    static let a = synced("a", "open one", complete: false)
    static let b = synced("B", "done one", complete: true)

    static func op(_ kind: PendingOperation.Kind, _ seq: Int, _ item: Item, base: Item?) -> PendingOperation {
        PendingOperation(sequence: seq, table: "todoitem", id: item.id, kind: kind, item: item, base: base, queuedAt: now)
    }

    static func plan(items: [Item] = [a, b], ops: [PendingOperation] = [], conflicts: [Conflict] = [], force: Bool = false,
                     query: String? = nil) throws(PurgeRefusal) -> PurgePlan {
        try Purge.plan(table: table, items: items, operations: ops, conflicts: conflicts, force: force, query: query, now: now) {
            $0.fields["complete"] == false
        }
    }

    @Test func refusesWithPendingOperations() {
        let edit = Self.op(.update, 4, Item(id: "a", fields: ["text": "x"]), base: Self.a)
        #expect(throws: PurgeRefusal.pending(table: "todoitem", operations: 1, conflicts: 0)) { try Self.plan(ops: [edit]) }
    }

    @Test func refusesAnUnknownQuery() {
        #expect(throws: PurgeRefusal.unknownQuery(table: "todoitem", query: "nope", known: ["default", "fresh", "open"])) {
            try Self.plan(query: "nope")
        }
    }

    @Test func wholeTableRemovesEveryItemAndEveryToken() throws {
        let p = try Self.plan()
        #expect(Set(p.itemRemovals) == ["a", "B"] && p.itemWrites.isEmpty)
        #expect(p.tokensReset == 2 && p.table.queries.values.allSatisfy { $0.token == nil })
        #expect(p.table.queries["open"]?.filter == "complete eq false", "queries and filters are kept")
        #expect(p.table.queries["open"]?.lastPullAt == "2024-05-02T00:00:00.000Z")
        #expect(p.table.cursorMode == .skip && p.receipts.isEmpty && p.operationRemovals.isEmpty)
    }

    @Test func oneQueryRemovesOnlyItsMatchingItemsAndItsToken() throws {
        let p = try Self.plan(query: "open")
        #expect(p.itemRemovals == ["a"] && p.itemWrites.isEmpty)
        #expect(p.tokensReset == 1 && p.table.queries["open"]?.token == nil && p.table.queries["default"]?.token != nil)
    }

    @Test func forceDropsOperationsAndReturnsItemsToTheLastServerCopy() throws {
        // a: edited here (back to its base). n: a new insert (no server copy). B: deleted here
        // (comes back from the base). c: in conflict (back to the conflict's server copy).
        let editedA = Item(id: "a", fields: ["text": "edited", "complete": false])
        let newN = Item(id: "n", fields: ["text": "new", "complete": false])
        let serverC = Item(id: "c", fields: ["text": "theirs", "complete": false],
                           system: SystemProperties(createdAt: "2024-05-01T09:00:00.000Z", updatedAt: "2024-05-02T00:00:00.000Z",
                                                    version: "v7", deleted: false))
        let baseC = Self.synced("c", "base", complete: false)
        let mineC = Item(id: "c", fields: ["text": "mine", "complete": false])
        let ops = [Self.op(.update, 1, editedA, base: Self.a), Self.op(.insert, 2, newN, base: nil),
                   Self.op(.delete, 3, Self.b, base: Self.b), Self.op(.update, 4, mineC, base: baseC)]
        let conflict = Conflict(table: "todoitem", id: "c", reason: .conflict, operation: ops[3].reference, status: 412,
                                detectedBy: .push, detectedAt: Self.now, message: nil, base: baseC, client: mineC,
                                server: serverC, fields: ["text"])
        let items = [Item(id: "a", fields: editedA.fields, system: Self.a.system), newN, Item(id: "c", fields: mineC.fields, system: baseC.system)]

        let all = try Self.plan(items: items, ops: ops, conflicts: [conflict], force: true)
        #expect(all.operationRemovals == ops && all.conflictRemovals == ["c"])
        #expect(Set(all.itemRemovals) == ["a", "n", "c"] && all.itemWrites.isEmpty, "B had no file; nothing to remove")
        #expect(all.receipts.count == 4 && all.receipts.allSatisfy { $0.decision == .purge && $0.rule == "force" && $0.kept == nil })
        #expect(all.receipts.map(\.operation) == ops.map(\.reference))
        #expect(all.receipts[0].lost == ["client": editedA.fields, "server": [:]])
        #expect(all.receipts[2].lost == ["client": Self.b.fields, "server": [:]], "a delete's receipt holds the deleted item")

        // With a query, the items that stay are the last server copies.
        let open = try Self.plan(items: items, ops: ops, conflicts: [conflict], force: true, query: "open")
        #expect(Set(open.itemRemovals) == ["a", "n", "c"], "a and c match 'complete eq false'; n had no server copy")
        #expect(open.itemWrites == [Self.b], "B comes back from its base and does not match")
        #expect(open.receipts[2].kept == Self.b.userCopy)
    }

    @Test func forceWithAConflictWhoseServerCopyIsDeletedRemovesTheItem() throws {
        let mine = Item(id: "a", fields: ["text": "mine", "complete": true])
        let op = Self.op(.update, 1, mine, base: Self.a)
        var gone = Self.a
        gone.system.deleted = true
        let conflict = Conflict(table: "todoitem", id: "a", reason: .conflict, operation: op.reference, status: 404,
                                detectedBy: .push, detectedAt: Self.now, message: nil, base: Self.a, client: mine,
                                server: gone, fields: [])
        let p = try Self.plan(items: [Item(id: "a", fields: mine.fields, system: Self.a.system), Self.b], ops: [op],
                              conflicts: [conflict], force: true, query: "open")
        #expect(p.itemRemovals == ["a"] && p.itemWrites.isEmpty, "deleted on the server: removed, though 'mine' does not match")
    }

    @Test func forceWithNothingPendingIsAPlainPurge() throws {
        let p = try Self.plan(force: true)
        #expect(p.receipts.isEmpty && Set(p.itemRemovals) == ["a", "B"])
    }
}
