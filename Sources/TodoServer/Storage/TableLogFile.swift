import Glibc
import TodoBasics

/// An open log file: appends at a known end, so a failed append can be cut off again.
///
/// New logs (a new table, a compacted log) are built under a temporary name, fsynced, then renamed
/// into place and the directory fsynced: a log file therefore always starts with a whole header,
/// and a crash leaves either the old file or the new one, plus a `.tmp` that opening removes.
struct TableLogFile {
    static let suffix = ".log"
    static let temporarySuffix = ".log.tmp"

    private(set) var path: String
    private(set) var fd: Int32
    /// Where the next append goes: the file's length as far as this process is concerned.
    private(set) var size: Int
    /// Where appends and fsyncs go (the system, or a test's faults).
    let io: any LogFileIO

    /// Opens an existing log for appending after its `validLength` bytes, cutting off a torn tail
    /// beyond them, and fsyncs it: records a crashed process wrote but never fsynced are about to be
    /// served, so they must be on disk first.
    static func open(path: String, validLength: Int, io: any LogFileIO) throws(StorageError) -> TableLogFile {
        let fd = try retrying("open", path) { Glibc.open(path, O_RDWR | O_CLOEXEC) }
        let file = TableLogFile(path: path, fd: fd, size: validLength, io: io)
        do {
            var st = stat()
            _ = try retrying("stat", path) { fstat(fd, &st) }
            if Int(st.st_size) != validLength {
                _ = try retrying("truncate", path) { ftruncate(fd, off_t(validLength)) }
            }
            try file.sync()
        } catch {
            file.close()
            throw error
        }
        return file
    }

    /// Starts a new, empty file under the temporary name of the log at `finalPath`.
    static func createTemporary(for finalPath: String, io: any LogFileIO) throws(StorageError) -> TableLogFile {
        let path = String(finalPath.dropLast(suffix.count)) + temporarySuffix
        let fd = try retrying("create", path) { Glibc.open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        return TableLogFile(path: path, fd: fd, size: 0, io: io)
    }

    /// Writes `bytes` at the end. On failure the file is cut back to its previous length, so a later
    /// append does not follow a half record; if even that fails, the error says so and the caller
    /// must stop appending.
    mutating func append(_ bytes: [UInt8]) throws(StorageError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                io.pwrite(fd, UnsafeRawBufferPointer(rebasing: buffer[written...]), at: size + written)
            }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                if ftruncate(fd, off_t(size)) != 0 {
                    throw StorageError(.unavailable, path: path,
                                       "cannot append (\(errnoText(code))) nor cut the partial record off")
                }
                throw .io("append to", path, code)
            }
            written += n
        }
        size += bytes.count
    }

    /// Reads `count` bytes at `offset` (compaction copies the records appended while it ran).
    func read(from offset: Int, count: Int) throws(StorageError) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = result.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw .io("read", path, code)
            }
            if n == 0 { throw StorageError(.io, path: path, "cannot read: the file is shorter than expected") }
            done += n
        }
        return result
    }

    func sync() throws(StorageError) {
        _ = try Self.retrying("fsync", path) { io.fdatasync(fd) }
    }

    /// Renames this (temporary) file over `finalPath` and makes the rename durable.
    mutating func install(as finalPath: String) throws(StorageError) {
        let from = path
        _ = try Self.retrying("rename", from) { rename(from, finalPath) }
        path = finalPath
        try Self.syncDirectory(finalPath.parentPath)
    }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Whether the file has a descriptor: a table's log is closed while nobody writes to it, so the
    /// descriptors do not grow with the number of tables (`OpenLogs`, issue 17).
    var isOpen: Bool { fd >= 0 }

    /// Gives up the descriptor; `reopen()` takes a new one. The caller makes sure everything
    /// appended is durable first, so no write-back error can be lost with the descriptor.
    mutating func release() -> Int32 {
        let old = fd
        fd = -1
        return old
    }

    /// Opens the file again for appending at `size`, after `release()`.
    mutating func reopen() throws(StorageError) {
        guard fd < 0 else { return }
        let path = self.path
        fd = try Self.retrying("open", path) { Glibc.open(path, O_RDWR | O_CLOEXEC) }
    }

    /// fsync of a directory, so that creations, renames and removals in it survive a power loss.
    static func syncDirectory(_ directory: String) throws(StorageError) {
        let fd = try retrying("open directory", directory) { Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { _ = Glibc.close(fd) }
        _ = try retrying("fsync", directory) { fsync(fd) }
    }

    /// Runs a call, retrying on EINTR; -1 becomes an `.io` error naming the operation and path.
    static func retrying<T: BinaryInteger>(_ operation: String, _ path: String, _ call: () -> T)
        throws(StorageError) -> T
    {
        while true {
            let result = call()
            if result != -1 { return result }
            let code = errno
            if code != EINTR { throw .io(operation, path, code) }
        }
    }
}
