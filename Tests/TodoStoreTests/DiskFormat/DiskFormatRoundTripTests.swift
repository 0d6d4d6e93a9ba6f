import Testing
import TodoModel
@testable import TodoStore

/// Each kind of file read back gives the value written (domain → file JSON → canonical bytes →
/// domain), and each refuses a format this build cannot read with the error the store showed
/// before the disk format had types of its own.
@Suite struct DiskFormatRoundTripTests {
    typealias S = DiskFormatSamples

    /// The value, written and read back through the file's bytes.
    static func reread<File: DiskRecord>(_ file: File) throws -> File.Value {
        try File(json: JSONValue.parse(file.json.canonicalBytes())).value
    }

    @Test func operationsConflictsAndReceiptsReadBackAsWritten() throws {
        #expect(try Self.reread(OperationFile(S.operation)) == S.operation)
        #expect(try Self.reread(OperationFile(S.insert)) == S.insert)
        #expect(try Self.reread(ConflictFile(S.conflict)) == S.conflict.sortingFields)
        #expect(try Self.reread(ConflictFile(S.rejection)) == S.rejection)
        #expect(try Self.reread(ReceiptFile(S.receipt)) == S.receipt)
        #expect(try Self.reread(ReceiptFile(S.bareReceipt)) == S.bareReceipt)
    }

    @Test func configStateTablesUndoAndServerTablesReadBackAsWritten() throws {
        #expect(try Self.reread(ConfigFile(S.config)) == S.config)
        #expect(try Self.reread(ConfigFile(ReplicaConfig(installationId: "i"))) == ReplicaConfig(installationId: "i"))
        let state = ReplicaState(generation: 12, nextSequence: 345, nextReceipt: 6)
        #expect(try Self.reread(StateFile(state)) == state)
        #expect(try Self.reread(TableConfigFile(S.table)) == S.table)
        #expect(try Self.reread(TableConfigFile(TableConfig(name: "t"))) == TableConfig(name: "t"))
        #expect(try Self.reread(UndoFile(S.undo)) == S.undo)
        #expect(try Self.reread(ServerTablesFile(S.serverTables)) == S.serverTables)
    }

    @Test func itemFilesAndItemCopiesReadBackAsWritten() throws {
        let file = ItemFile(path: "tables/todoitem/items/x.json", item: S.item)
        let read = try ItemFile(path: file.path, json: JSONValue.parse(file.json.canonicalBytes()))
        #expect(read == file && read.written == S.item.fields && read.handChanges == nil)
        let old = ItemFile(path: file.path, item: S.item, written: nil)
        #expect(try ItemFile(path: file.path, json: old.json) == old, "a file from before ms_written reads as it is")
        #expect(try ItemCopyFormat.item(JSONValue.parse(ItemCopyFormat.json(S.server).canonicalBytes())) == S.server)
    }

    /// An older todo's config kept the app key in `appKey`: read, never written back.
    @Test func theLegacyAppKeyIsReadButNotWritten() throws {
        guard case .object(var members) = ConfigFile(S.config).json else { Issue.record("not an object"); return }
        members["appKey"] = "secret"
        let config = try ConfigFile(json: .object(members)).value
        #expect(config.legacyAppKey == "secret")
        #expect(ConfigFile(config).json.objectValue?["appKey"] == nil)
    }

    static let kinds: [(String, JSONValue, @Sendable (JSONValue) throws(RecordError) -> Void)] = [
        ("operation", OperationFile(S.operation).json, { v throws(RecordError) in _ = try OperationFile(json: v) }),
        ("conflict", ConflictFile(S.conflict).json, { v throws(RecordError) in _ = try ConflictFile(json: v) }),
        ("receipt", ReceiptFile(S.receipt).json, { v throws(RecordError) in _ = try ReceiptFile(json: v) }),
        ("config", ConfigFile(S.config).json, { v throws(RecordError) in _ = try ConfigFile(json: v) }),
        ("state", StateFile(ReplicaState()).json, { v throws(RecordError) in _ = try StateFile(json: v) }),
        ("table", TableConfigFile(S.table).json, { v throws(RecordError) in _ = try TableConfigFile(json: v) }),
        ("undo", UndoFile(S.undo).json, { v throws(RecordError) in _ = try UndoFile(json: v) }),
        ("server tables", ServerTablesFile(S.serverTables).json, { v throws(RecordError) in _ = try ServerTablesFile(json: v) }),
    ]

    @Test func everyKindRefusesAFormatItCannotRead() {
        let cases: [(JSONValue?, String)] = [
            (2, "\"format\" is 2; this version of todo reads format 1 only"),
            (0, "\"format\" is 0; this version of todo reads format 1 only"),
            (1.5, "\"format\" is 1.5; this version of todo reads format 1 only"),
            ("1", "\"format\" is \"1\"; this version of todo reads format 1 only"),
            (.null, "\"format\" is null; this version of todo reads format 1 only"),
            (nil, "\"format\" is missing"),
        ]
        for (kind, json, read) in Self.kinds {
            for (format, message) in cases {
                var members = json.objectValue ?? [:]
                members["format"] = format
                #expect(throws: RecordError(message), "\(kind) with format \(format?.compactText ?? "missing")") {
                    try read(.object(members))
                }
            }
            #expect(throws: Never.self, "\(kind) as written") { try read(json) }
        }
    }

    /// An operation inside an undo record is an operation record: a newer one is refused there too.
    @Test func anUndoRecordsOperationsCarryTheirOwnFormat() {
        var json = UndoFile(S.undo).json.objectValue ?? [:]
        var change = json["changes"]?.arrayValue?.first?.objectValue ?? [:]
        var after = change["after"]?.objectValue ?? [:]
        var op = after["operations"]?.arrayValue?.first?.objectValue ?? [:]
        op["format"] = 2
        after["operations"] = [.object(op)]
        change["after"] = .object(after)
        json["changes"] = [.object(change)]
        #expect(throws: RecordError("change 1: \"after\": \"format\" is 2; this version of todo reads format 1 only")) {
            try UndoFile(json: .object(json))
        }
    }
}

extension Conflict {
    /// As the file holds it: the clashing fields sorted.
    var sortingFields: Conflict {
        var c = self
        c.fields.sort()
        return c
    }
}
