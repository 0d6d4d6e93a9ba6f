import Testing
@testable import TodoModel

/// Every row of sync.md §8.2 and §8.4, the receipts' lost values (§9), and the fold of later
/// operations (§8.2 step 2). Manual resolutions (§8.3) are in `ManualResolutionTests`.
@Suite struct ConflictResolutionTests {
    typealias F = ResolutionFixtures

    // MARK: §8.2 insert / live

    @Test func insertLiveUseClientBecomesAnUpdateOnTheServerVersion() throws {
        let op = F.op(.insert, base: nil)
        let p = try F.plan(F.conflict(op, server: F.server()), [op], F.client, .useClient)
        let after = try #require(p.remaining.first)
        #expect(after.kind == .update && after.base == F.server() && after.sequence == op.sequence && !after.attempted)
        #expect(after.item == F.client.userCopy)
        #expect(p.removals == [op] && p.writes == [after], "the insert file goes, the update file comes")
        #expect(p.item?.fields == F.client.fields && p.item?.system.version == "v2" && p.item?.system.deleted == nil)
        #expect(p.receipts.count == 1 && p.receipts[0].rule == "use-client" && p.receipts[0].decision == .resolve)
        #expect(p.receipts[0].lost == ["client": [:], "server": ["text": "c"]])
        #expect(p.receipts[0].operation == OperationReference(kind: .update, sequence: 3))
    }

    @Test func insertLiveUseServerRemovesEveryOperation() throws {
        let op = F.op(.insert, base: nil)
        let p = try F.plan(F.conflict(op, server: F.server()), [op], F.client, .useServer)
        #expect(p.remaining.isEmpty && p.removals == [op] && p.writes.isEmpty)
        #expect(p.item == ConflictResolution.itemFile(from: F.server()))
        #expect(p.item?.system.deleted == nil, "an item file never holds ms_deleted")
        #expect(p.receipts[0].lost == ["client": ["text": "b"], "server": [:]])
        #expect(p.receipts[0].kept == F.server().userCopy)
        #expect(p.receipts[0].operation == OperationReference(kind: .insert, sequence: 3))
    }

    @Test func insertLiveMergeWithAnEmptyBase() throws {
        // Added on both sides with different texts: a clash (scenario 68).
        let op = F.op(.insert, base: nil)
        #expect(throws: ResolutionFailure.clash(id: "X", fields: ["text"])) {
            try F.plan(F.conflict(op, server: F.server()), [op], F.client, .merge)
        }
        // A added {text: a}, B added {text: a, note: n}: B's op becomes an update adding note.
        let mine = Item(id: "X", fields: ["text": "a", "note": "n"])
        let insert = F.op(.insert, item: mine, base: nil)
        let theirs = F.server(["text": "a"])
        let p = try F.plan(F.conflict(insert, server: theirs), [insert], mine, .merge)
        let after = try #require(p.remaining.first)
        #expect(after.kind == .update && after.base == theirs && after.item.fields == ["text": "a", "note": "n"])
        #expect(p.item?.fields == ["text": "a", "note": "n"] && p.item?.system.version == "v2")
        #expect(p.receipts[0].fields?.fromClient == ["note"] && p.receipts[0].fields?.fromServer == [])
        #expect(p.receipts[0].lost == ["client": [:], "server": [:]])
    }

    @Test func insertLiveMergeEqualToTheServerRemovesTheOperations() throws {
        let mine = Item(id: "X", fields: ["text": "a"])
        let insert = F.op(.insert, item: mine, base: nil)
        let theirs = F.server(["text": "a", "complete": true])
        let p = try F.plan(F.conflict(insert, server: theirs), [insert], mine, .merge)
        #expect(p.remaining.isEmpty && p.removals == [insert])
        #expect(p.item == ConflictResolution.itemFile(from: theirs))
        #expect(p.receipts[0].fields?.fromServer == ["complete"])
    }

    // MARK: §8.2 insert / deleted

    @Test func insertDeletedRows() throws {
        let op = F.op(.insert, base: nil)
        let c = F.conflict(op, server: F.server(deleted: true))
        let client = try F.plan(c, [op], F.client, .useClient)
        let after = try #require(client.remaining.first)
        #expect(after.kind == .update && after.restore && after.base == F.server(deleted: true))
        #expect(client.item?.fields == F.client.fields && client.item?.system.deleted == nil)

        let server = try F.plan(c, [op], F.client, .useServer)
        #expect(server.remaining.isEmpty && server.item == nil)
        #expect(server.receipts[0].lost == ["client": F.client.fields, "server": [:]])
        #expect(server.receipts[0].kept == nil)

        #expect(throws: ResolutionFailure.deletionCannotBeMerged(id: "X", kind: .addedHereDeletedThere)) {
            try F.plan(c, [op], F.client, .merge)
        }
    }

    // MARK: §8.2 update / live

    @Test func updateLiveUseClientRebasesOnTheServer() throws {
        let op = F.op(.update, sealed: true)
        let p = try F.plan(F.conflict(op, server: F.server()), [op], F.client, .useClient)
        let after = try #require(p.remaining.first)
        #expect(after.kind == .update && after.base == F.server() && after.item == op.item && !after.attempted && !after.restore)
        #expect(p.writes == [after] && p.removals.isEmpty, "same file name, new content")
        #expect(p.item?.fields == F.client.fields)
        #expect(p.receipts[0].kept == F.client.userCopy)
        #expect(p.receipts[0].lost == ["client": [:], "server": ["text": "c"]])
    }

    @Test func updateLiveUseServerTakesTheServerCopy() throws {
        let op = F.op(.update)
        let p = try F.plan(F.conflict(op, server: F.server()), [op], F.client, .useServer)
        #expect(p.remaining.isEmpty && p.removals == [op])
        #expect(p.item == ConflictResolution.itemFile(from: F.server()))
        #expect(p.receipts[0].lost == ["client": ["text": "b"], "server": [:]])
    }

    @Test func updateLiveMerge() throws {
        let op = F.op(.update)
        // Clash: text changed to b here and to c there.
        #expect(throws: ResolutionFailure.clash(id: "X", fields: ["text"])) {
            try F.plan(F.conflict(op, server: F.server()), [op], F.client, .merge)
        }
        // Disjoint: text here, complete there.
        let theirs = F.server(["text": "a", "complete": true])
        let p = try F.plan(F.conflict(op, server: theirs), [op], F.client, .merge)
        let after = try #require(p.remaining.first)
        #expect(after.kind == .update && after.base == theirs && after.item.fields == ["text": "b", "complete": true])
        #expect(after.item.id == "x" && p.item?.id == "x", "the merged copy takes the server's id spelling (§5.6)")
        #expect(p.item?.fields == ["text": "b", "complete": true] && p.item?.system.version == "v2")
        #expect(p.receipts[0].fields?.fromClient == ["text"] && p.receipts[0].fields?.fromServer == ["complete"])
        // The server already holds the change.
        let same = F.server(["text": "b", "complete": true])
        let q = try F.plan(F.conflict(op, server: same), [op], F.client, .merge)
        #expect(q.remaining.isEmpty && q.item == ConflictResolution.itemFile(from: same))
    }

    @Test func mergeWithNoClashingFieldsRecorded() throws {
        // Scenario 63: a conflict recorded with fields [] after the 4th 412 (§4.6.3).
        let op = F.op(.update)
        let theirs = F.server(["text": "a", "complete": true])
        var c = F.conflict(op, server: theirs)
        c.fields = []
        let p = try F.plan(c, [op], F.client, .merge)
        #expect(p.remaining.first?.base?.system.version == "v2")
        #expect(p.item?.fields == ["text": "b", "complete": true])
    }

    // MARK: §8.2 update / deleted and update / null

    @Test func updateDeletedRows() throws {
        let op = F.op(.update)
        let c = F.conflict(op, server: F.server(deleted: true))
        let client = try F.plan(c, [op], F.client, .useClient)
        #expect(client.remaining.first?.restore == true && client.remaining.first?.base == F.server(deleted: true))
        #expect(client.remaining.first?.kind == .update)
        let server = try F.plan(c, [op], F.client, .useServer)
        #expect(server.remaining.isEmpty && server.item == nil && server.removals == [op])
        #expect(throws: ResolutionFailure.deletionCannotBeMerged(id: "X", kind: .changedHereDeletedThere)) {
            try F.plan(c, [op], F.client, .merge)
        }
    }

    @Test func updateWithNoServerRowRows() throws {
        let op = F.op(.update)
        let c = F.conflict(op, server: nil)
        let client = try F.plan(c, [op], F.client, .useClient)
        let after = try #require(client.remaining.first)
        #expect(after.kind == .insert && after.base == nil && !after.restore)
        #expect(client.removals == [op] && client.writes == [after])
        #expect(client.item?.system == SystemProperties.none, "never accepted by the server now: no ms_ members")
        #expect(client.receipts[0].lost == ["client": [:], "server": [:]])
        let server = try F.plan(c, [op], F.client, .useServer)
        #expect(server.remaining.isEmpty && server.item == nil)
        #expect(throws: ResolutionFailure.deletionCannotBeMerged(id: "X", kind: .changedHereDeletedThere)) {
            try F.plan(c, [op], F.client, .merge)
        }
    }

    // MARK: §8.2 delete / live

    @Test func deleteLiveRows() throws {
        let op = F.op(.delete, item: F.base)
        let c = F.conflict(op, server: F.server())
        let client = try F.plan(c, [op], nil, .useClient)
        let after = try #require(client.remaining.first)
        #expect(after.kind == .delete && after.base == F.server() && client.item == nil)
        #expect(client.receipts[0].kept == nil)
        #expect(client.receipts[0].lost == ["client": [:], "server": ["text": "c", "complete": false]])
        let server = try F.plan(c, [op], nil, .useServer)
        #expect(server.remaining.isEmpty && server.item == ConflictResolution.itemFile(from: F.server()), "it reappears locally")
        #expect(server.receipts[0].lost == ["client": [:], "server": [:]])
        #expect(throws: ResolutionFailure.deletionCannotBeMerged(id: "X", kind: .deletedHereChangedThere)) {
            try F.plan(c, [op], nil, .merge)
        }
    }

    // MARK: §8.4 rejected

    @Test func rejectedRows() throws {
        let op = F.op(.insert, base: nil, sealed: true)
        let c = F.conflict(op, server: nil, reason: .rejected)
        let client = try F.plan(c, [op], F.client, .useClient)
        var unsealed = op
        unsealed.attempted = false
        #expect(client.remaining == [unsealed], "the op stays as it is, to be sent again")
        #expect(client.item == F.client)
        let server = try F.plan(c, [op], F.client, .useServer)
        #expect(server.remaining.isEmpty && server.item == nil, "no server copy: removed locally")
        let update = F.op(.update)
        let withCopy = try F.plan(F.conflict(update, server: F.server(), reason: .rejected), [update], F.client, .useServer)
        #expect(withCopy.item == ConflictResolution.itemFile(from: F.server()))
        #expect(throws: ResolutionFailure.nothingToMerge(id: "X")) { try F.plan(c, [op], F.client, .merge) }
    }

    @Test func rejectedManualObjectKeepsKindAndBase() throws {
        let op = F.op(.update)
        let c = F.conflict(op, server: F.server(), reason: .rejected)
        let p = try F.plan(c, [op], F.client, .manual(["text": "fixed", "priority": 2, "complete": nil]))
        let after = try #require(p.remaining.first)
        #expect(after.kind == .update && after.base == F.base && after.item.fields == ["text": "fixed", "priority": 2])
        #expect(p.item?.fields == ["text": "fixed", "priority": 2] && p.item?.system.version == "v1")
        #expect(p.receipts[0].rule == "manual")
    }

    @Test func rejectedManualDeleteIsAsForAConflict() throws {
        let op = F.op(.update)
        let p = try F.plan(F.conflict(op, server: F.server(), reason: .rejected), [op], F.client, .manual("delete"))
        #expect(p.remaining.first?.kind == .delete && p.remaining.first?.base == F.server() && p.item == nil)
    }

    // MARK: Fold of later operations (§8.2 step 2)

    @Test func useClientFoldsALaterUpdate() throws {
        let first = F.op(.update, seq: 3)
        let local = Item(id: "X", fields: ["text": "b", "complete": false, "note": "n"], system: F.base.system)
        let second = F.op(.update, seq: 7, item: local)
        let p = try F.plan(F.conflict(first, server: F.server()), [first, second], local, .useClient)
        let after = try #require(p.remaining.first)
        #expect(p.remaining.count == 1 && after.sequence == 3 && after.kind == .update)
        #expect(after.base == F.server() && after.item.fields == local.fields)
        #expect(p.removals == [second])
        #expect(p.item?.fields == local.fields && p.item?.system.version == "v2")
        #expect(p.receipts.map(\.rule) == ["update+update", "use-client"])
        #expect(p.receipts[0].decision == .collapse && p.receipts[0].lost == ["client": ["note": nil]])
    }

    @Test func useClientFoldsALaterDeleteIntoADeleteInPlace() throws {
        let first = F.op(.update, seq: 3)
        let second = F.op(.delete, seq: 7, item: F.client)
        let p = try F.plan(F.conflict(first, server: F.server()), [first, second], nil, .useClient)
        let after = try #require(p.remaining.first)
        #expect(after.sequence == 3 && after.kind == .delete && after.base == F.server() && after.item == F.client.userCopy)
        #expect(Set(p.removals.map(\.sequence)) == [3, 7] && p.writes == [after])
        #expect(p.item == nil && p.receipts.map(\.rule) == ["update+delete", "use-client"])
        #expect(p.receipts[1].kept == nil)
    }

    @Test func insertTurnedUpdateFoldsADeleteIntoADelete() throws {
        let first = F.op(.insert, seq: 3, base: nil)
        let second = F.op(.delete, seq: 7, item: F.client)
        let p = try F.plan(F.conflict(first, server: F.server()), [first, second], nil, .useClient)
        #expect(p.remaining.map(\.kind) == [.delete] && p.remaining[0].base == F.server(),
                "after --use-client the insert is an update, so the delete is sent (the server has the row)")
    }

    @Test func reinsertFoldsADeleteToNothing() throws {
        let first = F.op(.update, seq: 3)
        let second = F.op(.delete, seq: 7, item: F.client)
        let p = try F.plan(F.conflict(first, server: nil), [first, second], nil, .useClient)
        #expect(p.remaining.isEmpty && p.item == nil && Set(p.removals.map(\.sequence)) == [3, 7])
        #expect(p.receipts.map(\.rule) == ["insert+delete", "use-client"])
    }

    @Test func aFoldBackToTheServerCopyLeavesNothingToPush() throws {
        let first = F.op(.update, seq: 3)
        let second = F.op(.update, seq: 7, item: Item(id: "X", fields: F.server().fields))
        let p = try F.plan(F.conflict(first, server: F.server()), [first, second], Item(id: "X", fields: F.server().fields), .useClient)
        #expect(p.remaining.isEmpty && p.item?.fields == F.server().fields && p.item?.system.version == "v2")
        #expect(p.receipts[0].note != nil, "the collapse receipt says nothing is left to push")
    }

    @Test func useServerAndMergeAbsorbLaterOperations() throws {
        let first = F.op(.update, seq: 3)
        let local = Item(id: "X", fields: ["text": "b", "complete": false, "note": "n"], system: F.base.system)
        let second = F.op(.update, seq: 7, item: local)
        let theirs = F.server(["text": "a", "complete": true])
        let server = try F.plan(F.conflict(first, server: theirs), [first, second], local, .useServer)
        #expect(server.remaining.isEmpty && Set(server.removals.map(\.sequence)) == [3, 7])
        let merged = try F.plan(F.conflict(first, server: theirs), [first, second], local, .merge)
        #expect(merged.remaining.count == 1 && merged.remaining[0].sequence == 3)
        #expect(merged.remaining[0].item.fields == ["text": "b", "complete": true, "note": "n"], "the later change is kept")
        #expect(merged.removals == [second] && merged.receipts.map(\.rule) == ["merge"])
        // A later delete is a deletion on the client side.
        let delete = F.op(.delete, seq: 7, item: F.client)
        #expect(throws: ResolutionFailure.deletionCannotBeMerged(id: "X", kind: .changedOnBothSides)) {
            try F.plan(F.conflict(first, server: theirs), [first, delete], nil, .merge)
        }
    }

    // MARK: Inconsistent queues

    @Test func aConflictWhoseOperationIsMissingOrNotFirstFails() {
        let op = F.op(.update, seq: 3)
        var c = F.conflict(op, server: F.server())
        c.operation = OperationReference(kind: .update, sequence: 9)
        #expect(throws: ResolutionFailure.inconsistent(id: "X", .notPending(9))) {
            try F.plan(c, [op], F.client, .useClient)
        }
        let later = F.op(.update, seq: 9)
        #expect(throws: ResolutionFailure.inconsistent(id: "X", .notFirst(9))) {
            try F.plan(c, [op, later], F.client, .useClient)
        }
    }

}

/// Shared copies: base v1 `{text: a, complete: false}`, the client's `{text: b}`, the server's v2.
enum ResolutionFixtures {
    static let now = "2024-05-03T10:00:00.000Z"
    static let v1 = SystemProperties(createdAt: "2024-05-01T09:00:00.000Z", updatedAt: "2024-05-01T09:00:00.000Z", version: "v1")
    static let base = Item(id: "X", fields: ["text": "a", "complete": false], system: v1)
    static let client = Item(id: "X", fields: ["text": "b", "complete": false], system: v1)

    static func server(_ fields: [String: JSONValue] = ["text": "c", "complete": false], deleted: Bool = false) -> Item {
        Item(id: "x", fields: fields, system: SystemProperties(createdAt: "2024-05-01T09:00:00.000Z",
                                                               updatedAt: "2024-05-02T08:12:00.000Z", version: "v2", deleted: deleted))
    }

    static func op(_ kind: PendingOperation.Kind, seq: Int = 3, item: Item = client, base: Item? = base,
                   sealed: Bool = false) -> PendingOperation {
        PendingOperation(sequence: seq, table: "todoitem", id: "X", kind: kind, item: item, base: base,
                         attempted: sealed, queuedAt: "2024-05-02T08:10:00.000Z")
    }

    static func conflict(_ op: PendingOperation, server: Item?, reason: Conflict.Reason = .conflict,
                         resolved: JSONValue = .null) -> Conflict {
        Conflict(table: "todoitem", id: "X", reason: reason, operation: op.reference, status: reason == .conflict ? 412 : 400,
                 detectedBy: .push, detectedAt: "2024-05-02T08:15:30.120Z", message: reason == .rejected ? "bad field" : nil,
                 base: op.base, client: op.kind == .delete ? nil : client, server: server, fields: ["text"], resolved: resolved)
    }

    static func plan(_ c: Conflict, _ ops: [PendingOperation], _ item: Item?, _ strategy: ResolutionStrategy)
        throws(ResolutionFailure) -> ResolutionPlan
    {
        try ConflictResolution.plan(c, operations: ops, item: item, strategy: strategy, now: now)
    }
}
