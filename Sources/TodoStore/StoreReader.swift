#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoModel

/// Consistent reads without the lock, so `todo status` never waits for a long push.
///
/// With no journal on disk, a read is kept only if the store's generation (bumped by every
/// commit, in `state.json`) is the same before and after it and no journal appeared meanwhile.
/// With a live writer's journal on disk, the read goes through the journal (`JournalView`) and is
/// kept only if the same journal is still there after it: the state after that commit. A journal
/// left by a writer that died is completed here, under the lock, when the lock is free; when it
/// cannot be (a read-only folder, an immutable file, a full disk), the read goes through it too,
/// and `unfinishedCommit` says why, so reading never needs a write. Otherwise the read is retried.
/// A removal of item files that is not finished (`ItemRemoval`) is handled as a journal is.
extension Store {
    public func consistentRead<T>(_ body: (Store) throws(StoreError) -> T) throws(StoreError) -> T {
        let journal = layout.absolute(StoreLayout.journalFile), marker = layout.absolute(ItemRemoval.markerFile)
        for attempt in 0..<400 {
            if attempt > 0 { usleep(attempt < 20 ? 1_000 : 5_000) }
            if fs.fileExists(journal) {
                if try finishIfUnlocked() { continue }
                if let result = try readThroughJournal(body) { return result }
                continue
            }
            if fs.fileExists(marker), unfinishedCommit == nil {
                // A purge or table rm not finished yet (`ItemRemoval`): finish it first, or wait
                // for the writer that is finishing it, so no read shows a table half removed.
                if try finishIfUnlocked() || unfinishedCommit == nil { continue }
            }
            let before = try state().generation
            let result: T
            do {
                result = try body(self)
            } catch {
                if (try? state().generation) != before || fs.fileExists(journal) { continue }
                throw error
            }
            if fs.fileExists(journal) { continue }
            if try state().generation == before { return result }
        }
        throw .busy(path: layout.root)
    }

    /// The store as readers see it, for a one-off look without the retries of `consistentRead`
    /// (`todo doctor` on a store it could not open for writing): through the journal when one is
    /// on disk.
    public func throughJournal() throws(StoreError) -> Store {
        guard let (view, _) = try journalView() else { return self }
        let reader = Store(layout: layout, fs: view, lock: nil)
        reader.handEditLog = handEditLog
        return reader
    }

    /// The read as of the journal's commit, or nil when the journal changed meanwhile (retry).
    private func readThroughJournal<T>(_ body: (Store) throws(StoreError) -> T) throws(StoreError) -> T? {
        guard let (view, bytes) = try journalView() else { return nil }  // finished meanwhile
        let path = layout.absolute(StoreLayout.journalFile)
        let unchanged = { (try? self.fs.readFile(path)) == .some(bytes) }
        // A live writer's removal of item files: wait until it is done (see `consistentRead`).
        if unfinishedCommit == nil, view.fileExists(layout.absolute(ItemRemoval.markerFile)) { return nil }
        let reader = Store(layout: layout, fs: view, lock: nil)
        reader.handEditLog = handEditLog
        do {
            let result = try body(reader)
            return unchanged() ? result : nil
        } catch {
            if unchanged() { throw error }
            return nil
        }
    }

    /// The journal on disk as a file system view, and its bytes; nil when there is none.
    private func journalView() throws(StoreError) -> (JournalView, [UInt8])? {
        let bytes: [UInt8]
        do {
            guard let read = try fs.readFile(layout.absolute(StoreLayout.journalFile)) else { return nil }
            bytes = read
        } catch {
            throw .io(error)
        }
        do {
            return (try JournalView(base: fs, layout: layout, journal: try JSONValue.parse(bytes)), bytes)
        } catch {
            // Journals are renamed into place whole, so a bad one is a damaged store, not a race.
            throw .corrupt(path: displayPath(StoreLayout.journalFile), reason: "\(error)")
        }
    }

    /// Completes a dead writer's commit if nobody holds the lock. True when it did (look again);
    /// false when a writer is live, or when the commit cannot be finished now (the reason is kept
    /// in `unfinishedCommit`): then the reader goes through the journal.
    private func finishIfUnlocked() throws(StoreError) -> Bool {
        guard !isWritable else { try Recovery.run(self); return true }
        do {
            let writer = try Store.open(at: layout.root, fs: fs, writable: true, command: "recovery", waitMilliseconds: 0)
            writer.close()
            return true
        } catch .locked {
            return false
        } catch .corrupt(let path, let reason) {
            throw .corrupt(path: path, reason: reason)
        } catch {
            unfinishedCommit = error
            return false
        }
    }
}
