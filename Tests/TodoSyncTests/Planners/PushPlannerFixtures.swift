import Testing
import TableProtocol
import TodoModel
@testable import TodoSync

/// The copies the push planner's table tests share: the tutorial item `x` of `todoitem`, whose
/// local change started from `{text: a, complete: false}` at version v1, and server copies made
/// the way a server's row is read (`WireItem.normalize`), so a copy in a reply's body and the
/// same copy from a lookup are equal.
enum PushFixtures {
    static let table = "todoitem"

    /// A server row as the wire carries it.
    static func row(_ fields: [String: JSONValue], version: String? = "v2", deleted: Bool = false) -> JSONValue {
        var object = fields
        object["id"] = "x"
        if let version { object["version"] = .string(version) }
        object["updatedAt"] = version == "v1" ? "2024-05-01T09:00:00.000Z" : "2024-05-02T08:12:00.000Z"
        object["deleted"] = .bool(deleted)
        return .object(object)
    }

    /// The server copy S of `row`.
    static func copy(_ fields: [String: JSONValue], version: String? = "v2", deleted: Bool = false) -> Item {
        WireItem.normalize(row(fields, version: version, deleted: deleted))!.item
    }

    /// The base every update and delete started from.
    static let base = copy(["text": "a", "complete": false], version: "v1")

    static func insert(_ fields: [String: JSONValue] = ["text": "a", "complete": false]) -> PendingOperation {
        PendingOperation(sequence: 1, table: table, id: "x", kind: .insert, item: Item(id: "x", fields: fields), base: nil,
                         attempted: true, queuedAt: "2024-05-01T09:00:00.000Z")
    }

    static func update(_ fields: [String: JSONValue] = ["text": "b", "complete": false], restore: Bool = false) -> PendingOperation {
        PendingOperation(sequence: 2, table: table, id: "x", kind: .update, item: Item(id: "x", fields: fields), base: base,
                         attempted: true, restore: restore, queuedAt: "2024-05-01T09:00:00.000Z")
    }

    static func delete() -> PendingOperation {
        PendingOperation(sequence: 3, table: table, id: "x", kind: .delete, item: base.userCopy, base: base,
                         attempted: true, queuedAt: "2024-05-01T09:00:00.000Z")
    }

    static func op(_ kind: PendingOperation.Kind) -> PendingOperation {
        switch kind {
        case .insert: insert()
        case .update: update()
        case .delete: delete()
        }
    }

    /// An answer of `status`, with a JSON body when given.
    static func reply(_ status: Int, _ body: JSONValue? = nil, headers: [(String, String)] = []) -> TableReply {
        TableReply(status: status, headers: HTTPHeaders(headers), body: body)
    }

    static func error(_ status: Int, _ message: String) -> TableReply { reply(status, ["error": .string(message)]) }

    /// The server's copy that auto-merges with `update()`: their `complete`, the same `text`.
    static let theirs = copy(["text": "a", "complete": true])

    /// The update after an auto-merge with `theirs`: its `text`, their `complete`, based on S.
    static let mergedWithTheirs: PushStep = {
        let next = with(update(), item: ["text": "b", "complete": true], base: .some(theirs))
        let receipt = Receipt(decision: .merge, rule: "push", table: table, id: "x", operation: update().reference,
                              kept: next.item, lost: [:], fields: (["text"], ["complete"]))
        return .decided(.sendAgain(next, receipt: receipt, merged: true))
    }()

    /// The op with `item` and `base` changed as an auto-merge leaves it.
    static func with(_ op: PendingOperation, item: [String: JSONValue]? = nil, base: Item?? = nil, restore: Bool? = nil,
                     kind: PendingOperation.Kind? = nil) -> PendingOperation {
        var o = op
        if let item { o.item = Item(id: o.id, fields: item) }
        if let base { o.base = base }
        if let restore { o.restore = restore }
        if let kind { o.kind = kind }
        return o
    }
}

/// A spec row as a test case: `spec` quotes the row, `expected` is the planner's step for it. The
/// description is the quote, so a failing case names its row.
struct PlannerRow: CustomTestStringConvertible, Sendable {
    let spec: String
    let context: PushPlanner.Context
    let event: PushPlanner.Event
    let landed: Bool
    let lookups: PushLookups
    let expected: PushStep

    init(_ spec: String, _ op: PendingOperation, _ event: PushPlanner.Event, onlyOp: Bool = true, merges: Int = 0,
         insertedAgain: Bool = false, landed: Bool = false, lookups: PushLookups = PushLookups(), _ expected: PushStep) {
        self.spec = spec
        context = PushPlanner.Context(op: op, sealedAtStart: event.isReplayCheck, onlyOp: onlyOp, merges: merges, insertedAgain: insertedAgain)
        self.event = event
        self.landed = landed
        self.lookups = lookups
        self.expected = expected
    }

    var testDescription: String { spec }

    var planned: PushStep { PushPlanner.plan(context, event, landed: landed, lookups: lookups) }
}

extension PushPlanner.Event {
    var isReplayCheck: Bool { if case .replayCheck = self { true } else { false } }

    static func answer(_ reply: TableReply) -> Self { .answered(reply, foreign: nil) }
}
