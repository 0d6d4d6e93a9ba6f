import FuzzDriver
import TodoModel
import TodoStore

/// Contract of the JSON parser and the record loaders (what `Store.decode` runs on every file of a
/// `.todo` directory): any bytes give a value or a `JSONParseError` with an offset inside the input;
/// a value prints and parses back to itself; every loader gives a record or a `RecordError` with a
/// message, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecords(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(start, count)
    let value: JSONValue
    do {
        value = try JSONValue.parse(bytes)
    } catch {
        guard error.offset >= 0, error.offset <= bytes.count, !error.reason.isEmpty else {
            violation("JSON error out of range: \(error)", bytes)
        }
        return 0
    }
    for printed in [value.compactBytes(), value.canonicalBytes()] {
        guard let again = try? JSONValue.parse(printed), again == value else {
            violation("printed JSON does not parse back: \(String(decoding: printed, as: UTF8.self))", bytes)
        }
    }
    for (name, load) in recordLoaders {
        do { try load(value) } catch {
            if error.message.isEmpty { violation("\(name) failed with an empty message", bytes) }
        }
    }
    return 0
}

/// Every loader of a stored record, by the file it reads.
let recordLoaders: [(String, @Sendable (JSONValue) throws(RecordError) -> Void)] = [
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
]

@_cdecl("FuzzRecords_main")
public func fuzzRecordsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { fuzzRecords($0, $1) }
}
