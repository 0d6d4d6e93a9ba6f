import TodoBasics

/// Why storage refused: enough to write a message that names the file, the byte and what to do.
public struct StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A log that cannot be read back: damaged in the middle, an unknown format, a bad header.
        case corrupt
        /// A system call failed (disk full, permissions, I/O error).
        case io
        /// Another process (or another `TableStorage` in this one) has the data directory open.
        case locked
        case noSuchTable
        case invalidTableName
        /// A value storage cannot write so that it reads back the same (an integer beyond ±2^53).
        case invalidValue
        /// An earlier fsync or append failed, or the storage was closed: the table takes no more
        /// writes until the server restarts and recovers it from its log.
        case unavailable
        /// A write or a table creation would cross a limit of `StorageLimits` (the server answers 507).
        case quotaExceeded
        /// A row would be larger than `StorageLimits.maxRowBytes` (the server answers 413).
        case rowTooLarge
    }

    public var kind: Kind
    public var path: String?
    /// Byte offset in `path` of the record at fault (`corrupt` only).
    public var offset: Int?
    public var message: String

    public init(_ kind: Kind, path: String? = nil, offset: Int? = nil, _ message: String) {
        self.kind = kind
        self.path = path
        self.offset = offset
        self.message = message
    }

    public var description: String {
        var text = "storage: "
        if let path { text += "'\(path)'" + (offset.map { " at byte \($0)" } ?? "") + ": " }
        text += message
        if kind == .corrupt {
            let data = "'" + (path?.parentPath ?? ".") + "'"
            text += "\nhint: the data directory was damaged outside the server; nothing was changed. Run: "
                + "todo-server check --data \(data) to list the damage; then restore the file from a backup, "
                + "or run: todo-server repair --data \(data) to keep every record that verifies and move "
                + "the damaged bytes to a file beside the log."
        }
        return text
    }

    static func io(_ operation: String, _ path: String, _ code: Int32) -> StorageError {
        StorageError(.io, path: path, "cannot \(operation): \(errnoText(code))")
    }
}
