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
/// left by a writer that died is completed here, under the lock, when the lock is free.
/// Otherwise the read is retried.
extension Store {
    public func consistentRead<T>(_ body: (Store) throws(StoreError) -> T) throws(StoreError) -> T {
        let journal = layout.absolute(StoreLayout.journalFile)
        for attempt in 0..<400 {
            if attempt > 0 { usleep(attempt < 20 ? 1_000 : 5_000) }
            if fs.fileExists(journal) {
                if try recoverIfUnlocked() { continue }
                if let result = try readThroughJournal(body) { return result }
                continue
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

    /// The read as of the journal's commit, or nil when the journal changed meanwhile (retry).
    private func readThroughJournal<T>(_ body: (Store) throws(StoreError) -> T) throws(StoreError) -> T? {
        let path = layout.absolute(StoreLayout.journalFile)
        let view: JournalView
        let bytes: [UInt8]
        do {
            guard let read = try fs.readFile(path) else { return nil }
            bytes = read
            view = try JournalView(base: fs, layout: layout, journal: try JSONValue.parse(bytes))
        } catch {
            // Journals are renamed into place whole, so a bad one is a damaged store, not a race.
            throw .corrupt(path: displayPath(StoreLayout.journalFile), reason: "\(error)")
        }
        let unchanged = { (try? self.fs.readFile(path)) == .some(bytes) }
        do {
            let result = try body(Store(layout: layout, fs: view, lock: nil))
            return unchanged() ? result : nil
        } catch {
            if unchanged() { throw error }
            return nil
        }
    }

    /// Completes a dead writer's commit if nobody holds the lock; does nothing if someone does.
    /// True when it looked (a journal is then gone or being dealt with), false when a writer is live.
    private func recoverIfUnlocked() throws(StoreError) -> Bool {
        guard !isWritable else { try Recovery.run(self); return true }
        do {
            let writer = try Store.open(at: layout.root, fs: fs, writable: true, command: "recovery", waitMilliseconds: 0)
            writer.close()
            return true
        } catch .locked {
            return false
        }
    }
}
