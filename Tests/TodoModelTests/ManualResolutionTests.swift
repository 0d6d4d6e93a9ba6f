import Testing
@testable import TodoModel

/// sync.md §8.3: `resolved` as an object or "delete", its validation, and the `--edit` proposal.
@Suite struct ManualResolutionTests {
    typealias F = ResolutionFixtures

    // MARK: §8.3.2 an object

    @Test func objectOverALiveServerCopy() throws {
        let op = F.op(.update)
        let p = try F.plan(F.conflict(op, server: F.server()), [op], F.client, .manual(["text": "I love both", "complete": nil]))
        let after = try #require(p.remaining.first)
        #expect(after.kind == .update && after.base == F.server() && after.item.fields == ["text": "I love both"])
        #expect(p.item?.fields == ["text": "I love both"] && p.item?.system.version == "v2")
        // Both sides' overridden values (§9.1): the client's text and the fields the item no longer has.
        #expect(p.receipts[0].lost == ["client": ["text": "b", "complete": false], "server": ["text": "c", "complete": false]])
        #expect(p.receipts[0].rule == "manual" && p.receipts[0].kept == Item(id: "X", fields: ["text": "I love both"]))
    }

    @Test func objectTurnsAnInsertOrADeleteIntoAnUpdate() throws {
        let insert = F.op(.insert, base: nil)
        let p = try F.plan(F.conflict(insert, server: F.server()), [insert], F.client, .manual(["text": "z", "complete": nil]))
        #expect(p.remaining.first?.kind == .update && p.removals == [insert])
        let delete = F.op(.delete, item: F.base)
        let q = try F.plan(F.conflict(delete, server: F.server()), [delete], nil, .manual(["text": "z", "complete": nil]))
        #expect(q.remaining.first?.kind == .update && q.item?.fields == ["text": "z"] && q.item?.id == "X")
    }

    @Test func objectEqualToTheServerCopyLeavesNothingToPush() throws {
        let op = F.op(.update)
        let p = try F.plan(F.conflict(op, server: F.server()), [op], F.client, .manual(["text": "c", "complete": false, "id": "x"]))
        #expect(p.remaining.isEmpty && p.item == ConflictResolution.itemFile(from: F.server()))
    }

    @Test func objectOverADeletedOrMissingServerCopy() throws {
        let op = F.op(.update)
        let restored = try F.plan(F.conflict(op, server: F.server(deleted: true)), [op], F.client, .manual(["text": "z", "complete": nil]))
        #expect(restored.remaining.first?.kind == .update && restored.remaining.first?.restore == true)
        #expect(restored.remaining.first?.base == F.server(deleted: true))
        let reinserted = try F.plan(F.conflict(op, server: nil), [op], F.client, .manual(["text": "z", "complete": nil]))
        #expect(reinserted.remaining.first?.kind == .insert && reinserted.remaining.first?.base == nil)
        #expect(reinserted.item == Item(id: "X", fields: ["text": "z"]))
    }

    // MARK: §8.3.3 "delete"

    @Test func deleteOverALiveServerCopy() throws {
        let op = F.op(.update)
        let p = try F.plan(F.conflict(op, server: F.server()), [op], F.client, .manual("delete"))
        let after = try #require(p.remaining.first)
        #expect(after.kind == .delete && after.base == F.server() && after.item == F.client.userCopy && p.item == nil)
        #expect(p.removals == [op] && p.writes == [after])
        #expect(p.receipts[0].kept == nil)
        #expect(p.receipts[0].lost == ["client": F.client.fields, "server": F.server().fields])
        // The client copy is null (deleted here): the op carries the server copy.
        let delete = F.op(.delete, item: F.base)
        let q = try F.plan(F.conflict(delete, server: F.server()), [delete], nil, .manual("delete"))
        #expect(q.remaining.first?.item == F.server().userCopy)
    }

    @Test func deleteOverADeletedOrMissingServerCopyDropsEverything() throws {
        let op = F.op(.update)
        for server in [F.server(deleted: true), nil] {
            let p = try F.plan(F.conflict(op, server: server), [op], F.client, .manual("delete"))
            #expect(p.remaining.isEmpty && p.item == nil && p.removals == [op])
            #expect(p.receipts[0].lost == ["client": F.client.fields, "server": [:]])
        }
    }

    // MARK: §8.3.4 null, and validation

    @Test func nullIsNoResolution() {
        let op = F.op(.update)
        #expect(throws: ResolutionFailure.noResolution(id: "X")) {
            try F.plan(F.conflict(op, server: F.server()), [op], F.client, .manual(.null))
        }
    }

    @Test func systemMembersAreIgnoredAndNullRemovesAField() throws {
        let fields = try ResolvedCopy.fields(["id": "x", "text": "t", "note": nil, "ms_version": "v9", "__updatedAt": "2024",
                                              "version": "v", "Deleted": true, "MS_foo": 1], id: "X")
        #expect(fields == ["text": "t"])
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        var resolved: JSONValue
        var reason: String
        var testDescription: String { resolved.compactText }
    }

    static let invalid: [Invalid] = [
        Invalid(resolved: ["id": "y", "text": "t"], reason: "\"id\" is \"y\"; it must be the item's id, \"X\""),
        Invalid(resolved: ["ID": "x"], reason: "\"ID\" is reserved: the identity is 'id' and cannot be set as a field"),
        Invalid(resolved: ["__v": 1], reason: "\"__v\" is reserved: names starting with '__' are system properties"),
        Invalid(resolved: ["tags": [1]], reason: "field \"tags\" is array; values are strings, numbers or booleans"),
        Invalid(resolved: ["text": 5], reason: "\"text\" must be a string, not number"),
        Invalid(resolved: ["complete": "yes"], reason: "\"complete\" must be true or false, not string"),
        Invalid(resolved: "keep", reason: "\"resolved\" must be null, an object (the wanted item), or \"delete\"; found \"keep\""),
        Invalid(resolved: ["bad name": 1],
                reason: "\"bad name\" is not a valid field name; use letters, digits and '_', starting with a letter or '_' (at most 128)"),
    ]

    /// Issue 15 item 7: a resolution is the whole wanted item, so every field that the base,
    /// client or server copy has must be in it, with a value or an explicit null.
    @Test func aResolutionThatLeavesOutFieldsIsRefusedListingThem() throws {
        let base = Item(id: "X", fields: ["text": "a", "complete": false, "old": 1], system: F.v1)
        let op = F.op(.update, base: base)
        var c = F.conflict(op, server: F.server(["text": "c", "complete": false, "priority": 2]))
        c.base = base
        #expect(throws: ResolutionFailure.incompleteResolution(id: "X", fields: ["complete", "old", "priority"])) {
            try F.plan(c, [op], F.client, .manual(["text": "I love both"]))
        }
        // An explicit null removes a field on purpose.
        let p = try F.plan(c, [op], F.client, .manual(["text": "I love both", "complete": true, "old": nil, "priority": nil]))
        #expect(p.item?.fields == ["text": "I love both", "complete": true])
        // A deletion copy (no client) still needs the base's and the server's fields.
        let delete = F.op(.delete, item: F.base)
        #expect(throws: ResolutionFailure.incompleteResolution(id: "X", fields: ["complete"])) {
            try F.plan(F.conflict(delete, server: F.server()), [delete], nil, .manual(["text": "z"]))
        }
    }

    @Test(arguments: invalid)
    func invalidResolutionsAreRefused(_ c: Invalid) {
        let op = F.op(.update)
        #expect(throws: ResolutionFailure.invalidResolution(id: "X", reason: c.reason)) {
            try F.plan(F.conflict(op, server: F.server()), [op], F.client, .manual(c.resolved))
        }
    }

    // MARK: §8.3.5 the --edit proposal

    @Test func proposalWhenTheClientDeletedIsTheServerCopy() {
        let op = F.op(.delete, item: F.base)
        let c = F.conflict(op, server: F.server())
        #expect(ResolvedCopy.proposal(c, operation: op, item: nil) == ["id": "x", "text": "c", "complete": false])
    }

    @Test func proposalOverALiveServerIsTheMergeWithTheClientWinningClashes() {
        let op = F.op(.update)
        let local = Item(id: "X", fields: ["text": "b", "complete": false, "note": "n"])
        let c = F.conflict(op, server: F.server(["text": "c", "complete": true, "priority": 2]))
        #expect(ResolvedCopy.proposal(c, operation: op, item: local)
            == ["id": "X", "text": "b", "complete": true, "note": "n", "priority": 2])
    }

    /// A field the proposal leaves out (here removed by the client and kept by the server) is
    /// written as null, so the proposal is a complete resolution (issue 15 item 7).
    @Test func proposalWritesNullForFieldsItLeavesOut() throws {
        let base = Item(id: "X", fields: ["text": "a", "note": "n"], system: F.v1)
        let op = F.op(.update, item: Item(id: "X", fields: ["text": "b"]), base: base)
        var c = F.conflict(op, server: F.server(["text": "c", "note": "n"]))
        c.base = base
        c.client = Item(id: "X", fields: ["text": "b"], system: F.v1)
        let proposal = ResolvedCopy.proposal(c, operation: op, item: c.client)
        #expect(proposal == ["id": "X", "text": "b", "note": nil])
        #expect(try ResolvedCopy.fields(proposal, id: "X", required: ResolvedCopy.fieldNames(c)) == ["text": "b"])
    }

    @Test func proposalOverADeletedOrMissingServerIsTheClientCopy() {
        let op = F.op(.update)
        for server in [F.server(deleted: true), nil] {
            let c = F.conflict(op, server: server)
            #expect(ResolvedCopy.proposal(c, operation: op, item: F.client) == ["id": "X", "text": "b", "complete": false])
        }
    }
}
