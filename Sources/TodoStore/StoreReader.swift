#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoModel

/// Consistent reads without the lock, so `todo status` never waits for a long push.
///
/// A read is kept only if the store's generation (bumped by every commit, in `state.json`) is the
/// same before and after it and no journal is present at the end; otherwise it is retried. A
/// journal left by a writer that died is completed here, under the lock, when the lock is free.
extension Store {
    public func consistentRead<T>(_ body: (Store) throws(StoreError) -> T) throws(StoreError) -> T {
        let journal = layout.absolute(StoreLayout.journalFile)
        for attempt in 0..<400 {
            if attempt > 0 { usleep(attempt < 20 ? 1_000 : 5_000) }
            if fs.fileExists(journal) {
                try recoverIfUnlocked()
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

    /// Completes a dead writer's commit if nobody holds the lock; does nothing if someone does.
    private func recoverIfUnlocked() throws(StoreError) {
        guard !isWritable else { try Recovery.run(self); return }
        do {
            let writer = try Store.open(at: layout.root, fs: fs, writable: true, command: "recovery")
            writer.close()
        } catch .locked {
            return
        }
    }
}
