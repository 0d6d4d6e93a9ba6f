import TodoBasics

/// Creating tables: a new log is written under a temporary name, fsynced, renamed into place and
/// the directory fsynced, and only then does the table join the storage (see `TableLogFile`).
extension TableStorage {
    /// Creates an empty table durably; a no-op when one with this name in any case exists.
    /// `columns`: typed columns it starts with (a table with a fixed schema needs them).
    public func createTable(_ name: String, softDelete: Bool, idType: TableIDType = .string,
                            columns: [String: ColumnType] = [:]) throws {
        _ = try create(name, softDelete: softDelete, idType: idType, evenIfUnchanged: true, counted: false) { w in
            for (column, type) in columns { w.setColumnType(column, type) }
        }
    }

    /// A write that creates its table when no table has this name (protocol §3.1.2, dynamic
    /// tables); otherwise the same as `write`.
    ///
    /// Why not `createTable` and then `write`: the table would exist before the write that causes
    /// it, and stay when that write fails. A query in between saw an empty table; an insert whose
    /// body was refused left one behind. Here the table's log is born holding the write's record
    /// (header, then the write, one file renamed into place), and the table appears in the storage
    /// only then, with the write applied. So the table, its first columns and its first row become
    /// visible together, and a write that throws, or changes nothing, creates nothing. While it
    /// creates, `body` runs holding the storage's table map: it must not call the storage at all.
    public func write<T>(_ table: String, creatingWithSoftDelete softDelete: Bool,
                         _ body: (inout TableWrite) throws -> T) throws -> T {
        var ticket = DurabilityTicket.durable
        let result = try write(table, creatingWithSoftDelete: softDelete, ticket: &ticket, body)
        try ticket.wait()
        return result
    }

    /// The same without waiting for a write to an existing table (see `write(_:ticket:_:)`); a
    /// table it creates is durable at once (its log is fsynced before it is renamed into place).
    func write<T>(_ table: String, creatingWithSoftDelete softDelete: Bool, ticket: inout DurabilityTicket,
                  _ body: (inout TableWrite) throws -> T) throws -> T {
        if handle(table) != nil { return try write(table, ticket: &ticket, body) }
        if let result = try create(table, softDelete: softDelete, idType: .string, evenIfUnchanged: false, counted: true, body) {
            return result
        }
        return try write(table, ticket: &ticket, body)  // created meanwhile by someone else
    }

    /// Runs `body` against a new, empty table and installs the table with the write's record (when
    /// the write changed nothing, only with `evenIfUnchanged`). Nil when the table exists. Holds the
    /// storage's table map for the whole creation (two fsyncs), as table creation always has: other
    /// requests wait for it, which is rare and brief. `counted`: the creation must respect
    /// `maxTables` (an insert's; tables the operator configures are created whatever the count).
    private func create<T>(_ name: String, softDelete: Bool, idType: TableIDType, evenIfUnchanged: Bool, counted: Bool,
                           _ body: (inout TableWrite) throws -> T) throws -> T? {
        guard Self.isValidTableName(name) else {
            throw StorageError(.invalidTableName, "'\(name)' is not a table name: 1 to 128 characters of [A-Za-z_][A-Za-z0-9_]*")
        }
        if lock.withLock({ $0 == nil }) { throw StorageError(.unavailable, path: directory, "the storage is closed") }
        let created = try tables.withLock { tables throws -> (T, StoredTable?)? in
            let key = name.lowercased()
            if tables[key] != nil { return nil }
            if counted { try quota.admitTable(name, count: tables.count) }
            let header = TableLogHeader(table: name, softDelete: softDelete, lastVersion: counter.current, lastUpdatedAt: 0,
                                        idType: idType)
            let memory = header.memory()
            var write = TableWrite(memory: memory, counter: counter, clock: clock)
            let result = try body(&write)
            let change = write.makeCommit()
            var bytes = TableLogFraming.line(try TableLogCoder.encode(.header(header)))
            if !change.isEmpty {
                bytes += TableLogFraming.line(try TableLogCoder.encode(.commit(change)))
            } else if !evenIfUnchanged {
                return (result, nil)
            }
            let growth = try quota.admit(change, to: memory)
            let path = directory.appendingPath(key + TableLogFile.suffix)
            var file: TableLogFile
            do {
                file = try TableLogFile.createTemporary(for: path, io: io)
            } catch {
                quota.refund(growth)
                throw error
            }
            do {
                try file.append(bytes)
                try file.sync()
                try file.install(as: path)
            } catch {
                quota.refund(growth)
                file.close()
                throw error
            }
            memory.apply(change)
            quota.applied(growth)
            let table = StoredTable(key: key, path: path, memory: memory, log: file,
                                    rowEntries: change.puts.count + change.removals.count, quota: quota,
                                    openLogs: openLogs, onFailure: onFailure)
            tables[key] = table
            return (result, table)
        }
        guard let (result, table) = created else { return nil }
        if let table { openLogs.used(table) }  // its log is open
        return result
    }
}
