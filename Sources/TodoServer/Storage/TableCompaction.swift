import Glibc

/// What a compaction copies: the table as it stood when it began, and where the log ended then.
struct CompactionPlan {
    let rows: UpdatedAtIndex
    let schema: TableSchema
    let header: TableLogHeader
    /// Records appended to the old log from here on are copied after the snapshot.
    let fromOffset: Int
    let entriesAtStart: Int
}

/// Compaction: replaces a log that is mostly superseded records by one holding just the live table.
///
/// 1. Under the lock: note the table (a copy-on-write copy of the order index, O(chunks)) and the
///    log's end. 2. Without the lock, while writers go on appending to the old log: write the
///    snapshot to `<table>.log.tmp` and fsync it. 3. Under the lock again: append the records written
///    since step 1, fsync, rename over `<table>.log`, fsync the directory, switch the group commit to
///    the new file. A crash before the rename leaves the old log (and a `.tmp` that opening deletes);
///    after it, the new log holds everything. Step 2, the long one, runs in the writer whose record
///    crossed the threshold, after its own record is durable: that writer answers late, but no other
///    writer or reader waits for more than step 3.
extension StoredTable {
    func startCompactionIfDue(_ state: inout TableLockedState, counter: StorageVersionCounter,
                              tuning: TableStorage.Tuning) -> CompactionPlan?
    {
        let threshold = tuning.compactionFactor * max(state.memory.rows.count, tuning.compactionMinimumRows)
        guard state.rowEntries > threshold, state.rowEntries >= state.compactionRetryAt else { return nil }
        return startCompaction(&state, counter: counter)
    }

    /// Compacts now, whatever the log's size (tests; an operator command could use it too).
    func compactNow(counter: StorageVersionCounter) {
        if let plan = state.withLock({ startCompaction(&$0, counter: counter) }) {
            compact(plan)
            openLogs.used(self)  // the compacted log is open
        }
    }

    private func startCompaction(_ state: inout TableLockedState, counter: StorageVersionCounter) -> CompactionPlan? {
        guard !state.compacting, commit.currentFailure == nil else { return nil }
        state.compacting = true
        let memory = state.memory
        let header = TableLogHeader(table: memory.schema.name, softDelete: memory.schema.softDelete,
                                    lastVersion: max(counter.current, memory.lastVersion),
                                    lastUpdatedAt: memory.lastUpdatedAt, idType: memory.schema.idType,
                                    lastID: memory.lastID)
        return CompactionPlan(rows: memory.order, schema: memory.schema, header: header,
                              fromOffset: state.log.size, entriesAtStart: state.rowEntries)
    }

    /// Runs a planned compaction. Failures before the rename leave the old log in use (and are
    /// retried later); a failure after it stops writes, as its outcome on disk is unknown.
    func compact(_ plan: CompactionPlan) {
        var temp: TableLogFile
        do {
            temp = try TableLogFile.createTemporary(for: path, io: io)
        } catch {
            abandon(nil, plan)
            return
        }
        do {
            try Self.writeSnapshot(plan, to: &temp)
            try temp.sync()
        } catch {
            abandon(temp, plan)
            return
        }
        state.withLock { state in
            if commit.currentFailure != nil {  // closed or failed meanwhile: the old log may be closed too
                abandonLocked(&state, temp, plan)
                return
            }
            do throws(StorageError) {
                let tail = state.log.size - plan.fromOffset
                if tail > 0 { try temp.append(state.log.read(from: plan.fromOffset, count: tail)) }
                try temp.sync()
                try temp.install(as: path)
            } catch {
                if temp.path == path {
                    // Renamed, but the directory fsync failed: which file survives a crash is unknown.
                    commit.fail(error, report: true)
                    temp.close()
                } else {
                    abandonLocked(&state, temp, plan)
                }
                return
            }
            let old = commit.replaceFile(fd: temp.fd, path: path, durableThrough: state.lsn)
            if old >= 0 { _ = Glibc.close(old) }
            state.rowEntries = plan.rows.count + (state.rowEntries - plan.entriesAtStart)
            state.log = temp
            state.compacting = false
        }
    }

    func abandon(_ temp: TableLogFile?, _ plan: CompactionPlan) {
        state.withLock { abandonLocked(&$0, temp, plan) }
    }

    private func abandonLocked(_ state: inout TableLockedState, _ temp: TableLogFile?, _ plan: CompactionPlan) {
        if let temp {
            temp.close()
            _ = unlink(temp.path)
        } else {
            _ = unlink(String(path.dropLast(TableLogFile.suffix.count)) + TableLogFile.temporarySuffix)
        }
        state.compacting = false
        state.compactionRetryAt = state.rowEntries + max(plan.rows.count, 1_000)
    }

    /// Header, the column types, then the rows in update order, a few hundred per record.
    private static func writeSnapshot(_ plan: CompactionPlan, to file: inout TableLogFile) throws(StorageError) {
        var buffer = TableLogFraming.line(try TableLogCoder.encode(.header(plan.header)))
        if !plan.schema.columns.isEmpty {
            let columns = plan.schema.columns.keys.sorted().map { ($0, plan.schema.columns[$0]!) }
            buffer += TableLogFraming.line(try TableLogCoder.encode(.commit(TableCommit(columns: columns))))
        }
        var batch: [StoredRow] = []
        batch.reserveCapacity(256)
        func flush() throws(StorageError) {
            if !batch.isEmpty {
                buffer += TableLogFraming.line(try TableLogCoder.encode(.commit(TableCommit(puts: batch))))
                batch.removeAll(keepingCapacity: true)
            }
            if buffer.count >= 1 << 20 {
                try file.append(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        var failure: StorageError?
        plan.rows.scan(after: nil, inclusive: true) { row in
            batch.append(row)
            guard batch.count == 256 else { return true }
            do throws(StorageError) { try flush() } catch { failure = error; return false }
            return true
        }
        if let failure { throw failure }
        try flush()
        if !buffer.isEmpty { try file.append(buffer) }
    }
}
