import Glibc
import TodoBasics

/// Opening a data directory: take its lock, clear unfinished temporary files, replay every log.
extension TableStorage {
    static let lockFileName = "LOCK"

    static func acquireLock(_ directory: String, _ tuning: Tuning) throws -> StoreLock {
        let path = directory.appendingPath(lockFileName)
        do {
            return try StoreLock.acquire(at: path, command: "todo-server", waitMilliseconds: tuning.lockWaitMilliseconds)
        } catch let held as StoreLock.Held {
            let holder = held.pid.map { " by process \($0)" + (held.command.map { " (\($0))" } ?? "") } ?? ""
            throw StorageError(.locked, path: path, "the data directory is in use\(holder)")
        }
    }

    static func recoverTables(_ directory: String, _ fs: LocalFileSystem, io: any LogFileIO, quota: StorageQuota,
                              openLogs: OpenLogs,
                              onFailure: @escaping @Sendable (StorageError) -> Void) throws -> [String: StoredTable] {
        let names: [String]
        do {
            names = try fs.listDirectory(directory) ?? []
        } catch {
            throw StorageError(.io, path: directory, "cannot list the data directory: \(error.reason)")
        }
        var removedTemporary = false
        for name in names where name.hasSuffix(TableLogFile.temporarySuffix) {
            let path = directory.appendingPath(name)
            _ = try TableLogFile.retrying("remove", path) { unlink(path) }
            removedTemporary = true
        }
        if removedTemporary { try TableLogFile.syncDirectory(directory) }

        var handles: [String: StoredTable] = [:]
        for name in names.sorted() where name.hasSuffix(TableLogFile.suffix) {
            let key = String(name.dropLast(TableLogFile.suffix.count))
            let path = directory.appendingPath(name)
            guard isValidTableName(key), key == key.lowercased() else {
                throw StorageError(.corrupt, path: path, "not a table log name (expected <lower-case table name>.log)")
            }
            let table = try recoverTable(key: key, path: path, fs, io: io, quota: quota, openLogs: openLogs,
                                         onFailure: onFailure)
            quota.count(table.state.withReadLock { $0.memory.memoryBytes })
            handles[key] = table
        }
        return handles
    }

    /// Replays one log; its descriptor is closed again before this returns (the first write opens
    /// it: `OpenLogs`), so start-up needs no more descriptors than one, however many tables there are.
    private static func recoverTable(key: String, path: String, _ fs: LocalFileSystem, io: any LogFileIO,
                                     quota: StorageQuota, openLogs: OpenLogs,
                                     onFailure: @escaping @Sendable (StorageError) -> Void) throws -> StoredTable {
        let bytes: [UInt8]
        do {
            guard let read = try fs.readFile(path) else { throw StorageError(.io, path: path, "the log disappeared") }
            bytes = read
        } catch let error as FileSystemError {
            throw StorageError(.io, path: path, "cannot read: \(error.reason)")
        }
        let replayed = try TableLogReader.replay(bytes, path: path)
        guard replayed.memory.schema.name.lowercased() == key else {
            throw StorageError(.corrupt, path: path, offset: 0,
                               "the header names table '\(replayed.memory.schema.name)', not '\(key)'")
        }
        var log = try TableLogFile.open(path: path, validLength: replayed.validLength, io: io)
        // The torn tail is gone now; the stamps it mentioned are not reused (issue 17).
        if let stamp = replayed.tornTail.record(above: replayed.memory) {
            do {
                try log.append(TableLogFraming.line(try TableLogCoder.encode(.commit(stamp))))
                try log.sync()
            } catch {
                log.close()
                throw error
            }
            replayed.memory.apply(stamp)
        }
        _ = Glibc.close(log.release())  // synced above: nothing is lost with the descriptor
        return StoredTable(key: key, path: path, memory: replayed.memory, log: log, rowEntries: replayed.rowEntries,
                           quota: quota, openLogs: openLogs, onFailure: onFailure)
    }
}
