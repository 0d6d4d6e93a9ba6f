import TodoModel

/// One value of each kind of `.todo` file with every optional member set, for the golden and
/// round-trip tests of the disk format.
enum DiskFormatSamples {
    static let system = SystemProperties(createdAt: "2024-05-01T09:00:00.000Z", updatedAt: "2024-05-02T10:30:00.123Z",
                                         version: "AAAAAAAAB9E=")
    static let item = Item(id: "D265929E-b17b", fields: ["text": "I love Azure!", "complete": false, "priority": 3,
                                                        "ratio": 0.25, "note": "ünïcödé \"quoted\"\n"],
                           system: system)
    static let server = Item(id: "d265929e-B17B", fields: ["text": "Mobile Services is Cool!", "complete": true],
                             system: SystemProperties(createdAt: system.createdAt, updatedAt: "2024-05-03T08:00:00.000Z",
                                                      version: "AAAAAAAAB9I=", deleted: false))

    static let operation = PendingOperation(sequence: 42, table: "todoitem", id: item.id, kind: .update,
                                            item: Item(id: item.id, fields: ["text": "changed", "complete": true]),
                                            base: item, attempted: true, attemptedAt: "2024-05-04T12:00:00.000Z",
                                            restore: true, queuedAt: "2024-05-04T11:59:59.000Z")
    static let insert = PendingOperation(sequence: 7, table: "notes", id: "n1", kind: .insert,
                                         item: Item(id: "n1", fields: ["text": "new"]), base: nil,
                                         queuedAt: "2024-05-04T11:00:00.000Z")

    static let conflict = Conflict(table: "todoitem", id: item.id, reason: .conflict, operation: operation.reference,
                                   status: 412, detectedBy: .push, detectedAt: "2024-05-04T12:00:01.000Z",
                                   message: "precondition failed", base: item, client: operation.item, server: server,
                                   fields: ["text", "complete"], resolved: ["text": "both", "complete": .null])
    static let rejection = Conflict(table: "notes", id: "n1", reason: .rejected, operation: insert.reference, status: nil,
                                    detectedBy: .pull, detectedAt: "2024-05-04T12:00:02.000Z", message: nil, base: nil,
                                    client: nil, server: nil, fields: [], resolved: "delete")

    static let receipt = Receipt(decision: .merge, rule: "update+update", table: "todoitem", id: item.id,
                                 operation: operation.reference, kept: item,
                                 lost: ["client": ["note": "mine"], "server": ["priority": .null]],
                                 fields: (fromClient: ["text"], fromServer: ["complete", "priority"]),
                                 note: "merged field by field")
    static let bareReceipt = Receipt(decision: .bothDeleted, rule: "delete+delete", table: "todoitem", id: "gone",
                                     operation: nil, kept: nil, lost: [:])

    static let config = ReplicaConfig(remote: "https://example.org/mobile", protocolGeneration: .mobileServices,
                                      defaultTable: "todoitem", installationId: "0f8fad5b-d9cb-469f-a165-70867728950e",
                                      pageSize: 200, caFile: "/etc/ssl/private-ca.pem")

    static let table = TableConfig(name: "todoitem", cursorMode: .skip, queries: [
        "todoitem": TableConfig.Query(filter: nil, lastPullAt: "2024-05-04T10:00:00.000Z",
                                      token: TableConfig.Token(updatedAt: "2024-05-04T09:59:00.000Z", id: "z9")),
        "mine": TableConfig.Query(filter: "complete eq false", lastPullAt: nil, token: nil),
        "skipping": TableConfig.Query(filter: nil, lastPullAt: "2024-05-04T10:00:00.000Z",
                                      token: TableConfig.Token(updatedAt: "2024-05-04T09:58:00.000Z", id: nil)),
    ], hardDelete: true)

    static let undo = UndoLog(records: [
        UndoRecord(command: "edit d265 --text changed", at: "2024-05-04T11:59:59.000Z", table: "todoitem", id: item.id,
                   before: ItemState(item: item, operations: []),
                   after: ItemState(item: Item(id: item.id, fields: ["text": "changed"], system: system), operations: [operation])),
        UndoRecord(command: "add new", at: "2024-05-04T11:00:00.000Z", table: "notes", id: "n1",
                   before: ItemState(item: nil, operations: []), after: ItemState(item: insert.item, operations: [insert])),
    ])

    static let serverTables = ServerTableList(remote: "https://example.org/mobile", listedAt: "2024-05-04T10:00:00.000Z",
                                              tables: ["todoitem", "notes", "Ünïcode"])
}
