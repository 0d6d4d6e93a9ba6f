import TodoBasics

/// `todo-server check` and `todo-server repair`: every log of a data directory, read whole.
///
/// Both hold the directory's lock, as the server does, so they never run beside a server (whose
/// appends in flight would look like torn tails, and which repair would pull the log from under).
public enum DataDirectoryMaintenance {
    /// What was found or done, one line each, and whether the server can start on the directory now.
    public struct Outcome: Sendable {
        public var lines: [String]
        public var serverCanStart: Bool
    }

    /// Reads every log and reports each problem with its file and byte; changes nothing.
    public static func check(directory: String) throws(StorageError) -> Outcome {
        let (logs, others, lock) = try open(directory)
        defer { lock.release() }
        var lines: [String] = []
        var damaged: [String] = []
        for path in logs {
            let inspection = TableLogInspection(try read(path), path: path)
            lines += inspection.report
            if !inspection.opens { damaged.append(path.lastPathComponent) }
        }
        lines += others
        if damaged.isEmpty {
            lines.append("ok: \(logs.count) table log\(logs.count == 1 ? "" : "s"), no damage; the server can start")
        } else {
            lines.append("damaged: \(damaged.joined(separator: ", ")); the server will not start on this directory. "
                + "Restore \(damaged.count == 1 ? "that file" : "those files") from a backup, or run: "
                + "todo-server repair --data '\(directory)' to keep every record that verifies and move the "
                + "damaged bytes to a file beside the log")
        }
        return Outcome(lines: lines, serverCanStart: damaged.isEmpty)
    }

    /// Salvages every log that has damage or a torn tail (see `TableLogRepair`) and says what it did.
    public static func repair(directory: String) throws(StorageError) -> Outcome {
        let (logs, _, lock) = try open(directory)
        defer { lock.release() }
        var lines: [String] = []
        var unrepaired: [String] = []
        for path in logs {
            let bytes = try read(path)
            let outcome = try TableLogRepair.repair(TableLogInspection(bytes, path: path), bytes: bytes)
            lines += outcome.lines
            if !outcome.repaired { unrepaired.append(path.lastPathComponent) }
        }
        if unrepaired.isEmpty {
            lines.append("done: the server can start")
        } else {
            lines.append("not repaired: \(unrepaired.joined(separator: ", ")) (see above); the server will not start "
                + "until \(unrepaired.count == 1 ? "it is" : "they are") restored from a backup")
        }
        return Outcome(lines: lines, serverCanStart: unrepaired.isEmpty)
    }

    /// Takes the lock; returns the table logs, sorted, and lines about the other files start-up handles.
    private static func open(_ directory: String) throws(StorageError) -> ([String], [String], StoreLock) {
        let fs = LocalFileSystem()
        guard fs.isDirectory(directory) else {
            throw StorageError(.io, path: directory, "no data directory here; name it with --data DIR")
        }
        let lock: StoreLock
        do {
            lock = try TableStorage.acquireLock(directory, TableStorage.Tuning())
        } catch let error as StorageError {
            throw StorageError(error.kind, path: error.path, error.message + "; stop the server first")
        } catch {
            throw StorageError(.io, path: directory, "cannot lock the data directory: \(error)")
        }
        let names: [String]
        do {
            names = (try fs.listDirectory(directory) ?? []).sorted()
        } catch {
            lock.release()
            throw StorageError(.io, path: directory, "cannot list the data directory: \(error.reason)")
        }
        let logs = names.filter { $0.hasSuffix(TableLogFile.suffix) }.map { directory.appendingPath($0) }
        var others: [String] = []
        for name in names where name.hasSuffix(TableLogFile.temporarySuffix) {
            others.append("\(name): an unfinished compaction or table creation; start-up deletes it")
        }
        for name in names where name.contains(TableLogFile.suffix + ".damaged.") && !name.hasPrefix(".") {
            others.append("\(name): bytes an earlier repair moved aside; kept for inspection, not read")
        }
        return (logs, others, lock)
    }

    private static func read(_ path: String) throws(StorageError) -> [UInt8] {
        let bytes: [UInt8]?
        do {
            bytes = try LocalFileSystem().readFile(path)
        } catch {
            throw StorageError(.io, path: path, "cannot read: \(error.reason)")
        }
        guard let bytes else { throw StorageError(.io, path: path, "the log disappeared") }
        return bytes
    }
}
