import Testing
import TodoModel

/// sync.md §5.5 case 1 and §7.4: a pulled row for an item with an open conflict refreshes the
/// conflict, and closes it when the new server copy settles it.
@Suite struct PulledRowRefreshTests {
    typealias T = PulledRowTests
    static let now = T.now

    static func conflict(_ op: PendingOperation, server: Item?, fields: [String], reason: Conflict.Reason = .conflict,
                         client: Item?, resolved: JSONValue = .null) -> Conflict {
        Conflict(table: "todoitem", id: "x", reason: reason, operation: op.reference, status: reason == .rejected ? 400 : 412,
                 detectedBy: .push, detectedAt: "2024-05-01T10:00:00.000Z", message: reason == .rejected ? "bad value" : nil,
                 base: op.base, client: client, server: server, fields: fields, resolved: resolved)
    }

    /// The refreshed conflict a plan writes, when it stays open.
    static func refreshed(_ plan: PulledRow.Plan, sourceLocation: SourceLocation = #_sourceLocation) -> Conflict? {
        #expect(plan.outcome == .conflictRefreshed, sourceLocation: sourceLocation)
        #expect(plan.item == nil && plan.writes.isEmpty && plan.removals.isEmpty && plan.receipts.isEmpty,
                "an open conflict keeps the item and its ops", sourceLocation: sourceLocation)
        guard case .some(.some(let c)) = plan.conflict else {
            Issue.record("the conflict was not rewritten", sourceLocation: sourceLocation)
            return nil
        }
        return c
    }

    /// The plan closes the conflict: the file is removed.
    static func expectClosed(_ plan: PulledRow.Plan, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(plan.outcome == .conflictClosed, sourceLocation: sourceLocation)
        #expect(plan.conflict == .some(nil), "the conflict file is removed", sourceLocation: sourceLocation)
    }

    static let update = T.op(.update, ["text": "b", "complete": false])
    static let client = T.edited(update.item.fields)
    static let v2 = T.server("x", "v2", ["text": "c", "complete": false], updatedAt: "2024-05-01T09:00:02.000Z")

    @Test("1: any row for an item with an open conflict only refreshes it (never the item or the op)") func refreshOnly() {
        let open = Self.conflict(Self.update, server: Self.v2, fields: ["text"], client: Self.client)
        let v3 = T.server("x", "v3", ["text": "d", "complete": true], updatedAt: "2024-05-01T09:00:03.000Z")
        let c = Self.refreshed(PulledRow.apply(v3, to: T.local(Self.client, [Self.update], conflict: open), now: Self.now))
        #expect(c?.server == v3)
        #expect(c?.fields == ["text"], "fields are recomputed against the new server copy")
        #expect(c?.client == open.client && c?.base == open.base && c?.operation == open.operation && c?.detectedBy == .push)
    }

    @Test("a rejected record only takes the new server copy") func rejected() {
        let open = Self.conflict(Self.update, server: Self.v2, fields: [], reason: .rejected, client: Self.client)
        let v3 = T.server("x", "v3", ["text": "b", "complete": false], updatedAt: "2024-05-01T09:00:03.000Z")
        let c = Self.refreshed(PulledRow.apply(v3, to: T.local(Self.client, [Self.update], conflict: open), now: Self.now))
        var expected = open
        expected.server = v3
        #expect(c == expected, "even a row equal to the client does not close a rejection")
    }

    @Test("a row at the version the conflict already has changes nothing") func sameVersion() {
        let open = Self.conflict(Self.update, server: Self.v2, fields: ["text"], client: Self.client)
        let plan = PulledRow.apply(Self.v2, to: T.local(Self.client, [Self.update], conflict: open), now: Self.now)
        #expect(plan.outcome == .unchanged)
        T.expectNoChange(plan)
    }

    @Test("update, live, clean merge: closes with the effect of case 10 (merge pull)") func updateClosesByMerge() {
        let open = Self.conflict(Self.update, server: Self.v2, fields: ["text"], client: Self.client)
        let v3 = T.server("x", "v3", ["text": "a", "complete": true], updatedAt: "2024-05-01T09:00:03.000Z")
        let plan = PulledRow.apply(v3, to: T.local(Self.client, [Self.update], conflict: open), now: Self.now)
        Self.expectClosed(plan)
        #expect((plan.item ?? nil)?.fields == ["text": "b", "complete": true])
        #expect((plan.item ?? nil)?.system.version == "v3")
        #expect(plan.writes.first?.base == v3 && plan.writes.first?.item.fields == ["text": "b", "complete": true])
        #expect(plan.receipts.map(\.decision) == [.merge] && plan.receipts.first?.rule == "pull")
    }

    @Test("update, live, equal to the client: closes with the effect of case 9 (absorb)") func updateClosesByAbsorb() {
        let open = Self.conflict(Self.update, server: Self.v2, fields: ["text"], client: Self.client)
        let v3 = T.server("x", "v3", ["text": "b", "complete": false], updatedAt: "2024-05-01T09:00:03.000Z")
        let plan = PulledRow.apply(v3, to: T.local(Self.client, [Self.update], conflict: open), now: Self.now)
        Self.expectClosed(plan)
        #expect(plan.removals == [Self.update] && plan.writes.isEmpty)
        #expect(plan.item == .some(PulledRow.itemCopy(v3)))
        #expect(plan.receipts.map(\.decision) == [.absorb])
    }

    @Test("update, live, but not the item's only op: stays open") func updateWithOpsBehind() {
        let behind = T.op(.update, ["text": "b2", "complete": false], sequence: 2)
        let open = Self.conflict(Self.update, server: Self.v2, fields: ["text"], client: Self.client)
        let v3 = T.server("x", "v3", ["text": "b", "complete": false], updatedAt: "2024-05-01T09:00:03.000Z")
        let c = Self.refreshed(PulledRow.apply(v3, to: T.local(Self.client, [Self.update, behind], conflict: open), now: Self.now))
        #expect(c?.server == v3)
    }

    @Test("update, deleted: stays open (changed here, deleted there), fields empty") func updateDeleted() {
        let open = Self.conflict(Self.update, server: Self.v2, fields: ["text"], client: Self.client)
        let gone = T.server("x", "v3", ["text": "c"], deleted: true, updatedAt: "2024-05-01T09:00:03.000Z")
        let c = Self.refreshed(PulledRow.apply(gone, to: T.local(Self.client, [Self.update], conflict: open), now: Self.now))
        #expect(c?.server == gone && c?.fields == [])
        #expect(c?.kind == .changedHereDeletedThere)
    }

    @Test("insert, live, equal to the client: closes, the insert landed (absorb)") func insertCloses() {
        let insert = T.op(.insert, ["text": "mine"])
        let item = Item(id: "x", fields: insert.item.fields)
        let open = Self.conflict(insert, server: T.server("x", "v2", ["text": "theirs"]), fields: ["text"], client: item)
        let v3 = T.server("x", "v3", ["text": "mine"], updatedAt: "2024-05-01T09:00:03.000Z")
        let plan = PulledRow.apply(v3, to: T.local(item, [insert], conflict: open), now: Self.now)
        Self.expectClosed(plan)
        #expect(plan.removals == [insert] && plan.item == .some(PulledRow.itemCopy(v3)))
        #expect(plan.receipts.map(\.decision) == [.absorb])
    }

    @Test("insert, live, still different: stays open with the new clashing fields") func insertStaysOpen() {
        let insert = T.op(.insert, ["text": "mine", "note": "n"])
        let item = Item(id: "x", fields: insert.item.fields)
        let open = Self.conflict(insert, server: T.server("x", "v2", ["text": "theirs"]), fields: ["text"], client: item)
        let v3 = T.server("x", "v3", ["text": "mine", "note": "other"], updatedAt: "2024-05-01T09:00:03.000Z")
        let c = Self.refreshed(PulledRow.apply(v3, to: T.local(item, [insert], conflict: open), now: Self.now))
        #expect(c?.server == v3 && c?.fields == ["note"])
    }

    @Test("delete, deleted: closes, both deleted, op removed") func deleteCloses() {
        let delete = T.op(.delete, ["text": "a", "complete": false])
        let open = Self.conflict(delete, server: Self.v2, fields: [], client: nil)
        let gone = T.server("x", "v3", ["text": "c"], deleted: true, updatedAt: "2024-05-01T09:00:03.000Z")
        let plan = PulledRow.apply(gone, to: T.local(nil, [delete], conflict: open), now: Self.now)
        Self.expectClosed(plan)
        #expect(plan.removals == [delete] && plan.writes.isEmpty)
        #expect(plan.receipts.map(\.decision) == [.bothDeleted])
    }

    @Test("delete, live at a new version: stays open (deleted here, changed there)") func deleteStaysOpen() {
        let delete = T.op(.delete, ["text": "a", "complete": false])
        let open = Self.conflict(delete, server: Self.v2, fields: [], client: nil)
        let v3 = T.server("x", "v3", ["text": "d"], updatedAt: "2024-05-01T09:00:03.000Z")
        let c = Self.refreshed(PulledRow.apply(v3, to: T.local(nil, [delete], conflict: open), now: Self.now))
        #expect(c?.server == v3 && c?.fields == [])
    }

    @Test("a manual resolution is kept: the conflict stays open even when the row would close it") func resolvedKept() {
        let wanted: JSONValue = ["text": "both"]
        let open = Self.conflict(Self.update, server: Self.v2, fields: ["text"], client: Self.client, resolved: wanted)
        let v3 = T.server("x", "v3", ["text": "b", "complete": false], updatedAt: "2024-05-01T09:00:03.000Z")
        let c = Self.refreshed(PulledRow.apply(v3, to: T.local(Self.client, [Self.update], conflict: open), now: Self.now))
        #expect(c?.server == v3 && c?.resolved == wanted)
    }
}
