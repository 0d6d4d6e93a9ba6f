import TodoModel

/// One kind of JSON file in `.todo` (an operation, a conflict, the config…): its shape on disk,
/// kept apart from the domain value it holds (issue 16 item 5), so that a change of the format is
/// made in one place, with a migration, and never reaches the domain model or the `--json` output.
///
/// Why a protocol of our own over `JSONValue` and not Swift's `Codable`: the reason `JSONValue`
/// gives. Records hold any user field, numbers follow the protocol's double rules, every file must
/// be the same bytes for the same data (the writer sorts keys), and a damaged file must be refused
/// with a sentence naming the member (`RecordReader`), not a decoding path. A file type is a thin
/// value around the domain value: reading and writing it adds no copy of the data.
///
/// Every such file has a `"format"` member. `init(json:)` reads it: the current format is read by
/// `init(current:)`; an older one is first brought to the current format's members by `migrate`,
/// one function per kind; a newer one (or anything else) is refused with an error naming it.
public protocol DiskRecord {
    associatedtype Value

    /// The format this build writes.
    static var format: Int { get }

    /// The file for this value, as it is to be written.
    init(_ value: Value)

    /// The domain value the file holds.
    var value: Value { get }

    /// The file's members, in the current format; the canonical bytes of this are the file.
    var json: JSONValue { get }

    /// Reads a file in the current format, checking every member (the format member was checked).
    init(current record: RecordReader) throws(RecordError)

    /// The members of a file of an older `format` (at least 1, below `Self.format`), rewritten in
    /// the current format. A new format adds its step here and nowhere else.
    static func migrate(_ members: [String: JSONValue], from format: Int) throws(RecordError) -> [String: JSONValue]
}

extension DiskRecord {
    /// Reads a file of any format this build knows, migrating an older one.
    public init(json: JSONValue) throws(RecordError) {
        let record = try RecordReader(json)
        let found = try FormatVersion.read(record, current: Self.format)
        if found == Self.format {
            try self.init(current: record)
        } else {
            try self.init(current: RecordReader(object: try Self.migrate(record.object, from: found)))
        }
    }
}

/// The `"format"` member of a record.
public enum FormatVersion {
    /// The first format of every kind of file.
    public static let first = 1

    /// The record's format: a whole number from `first` to `current`, or a clear refusal.
    public static func read(_ record: RecordReader, current: Int) throws(RecordError) -> Int {
        guard let value = record.object["format"] else { throw RecordError("\"format\" is missing") }
        guard let found = value.intValue, (first...current).contains(found) else { throw unreadable(value, current: current) }
        return found
    }

    /// The error for a format this build cannot read.
    public static func unreadable(_ value: JSONValue, current: Int) -> RecordError {
        let readable = current == first ? "format \(first) only" : "formats \(first) to \(current)"
        return RecordError("\"format\" is \(value.compactText); this version of todo reads \(readable)")
    }

    /// What `migrate` answers while a kind has had one format only: nothing older exists to read.
    public static func noOlderFormat(_ format: Int, current: Int) -> RecordError {
        unreadable(.number(Double(format)), current: current)
    }
}
