/// Group commit of PATCHes in the node: PATCHes to one table that arrive while others are in the
/// database go to it together, as one statement in one transaction (`todo_patch_many`), so they
/// share its round trip, its executor start and its commit (issue 18 item 6).
///
/// Why in the node: PostgreSQL already lets concurrent commits share a WAL flush, but each PATCH
/// still costs a backend a round trip, a transaction and a commit record, and on two cores that CPU,
/// not the flush, bounds durable PATCH/s. A PATCH waits for nothing new: the first one that finds
/// fewer than `maxRunning` batches in flight leads and runs what is pending; the others sleep until
/// their answer is there, or lead the next batch. Each PATCH is answered only once its batch has
/// committed, so every acknowledged write is durable, as before.
final class PostgresPatchBatches: @unchecked Sendable {
    /// One PATCH, as `todo_patch_many` takes it.
    struct Item: Sendable {
        let table: String
        let idKey: String
        /// The columns set, a JSON object (`PostgresPatch.patchJSON`).
        let json: String
        /// See `PostgresPatch.expectedVersion`.
        let expected: Int64?
    }

    /// What a batch's run gives each of its items: its answer, or the error that ended the batch.
    typealias Answers = [Result<PostgresPatch.Answer, any Error>]

    private final class Slot {
        let item: Item
        var answer: Result<PostgresPatch.Answer, any Error>?
        init(_ item: Item) { self.item = item }
    }

    /// Batches in flight at once: more lets the database overlap one batch's commit with the next.
    let maxRunning: Int
    /// Items in one batch at most.
    let maxItems: Int
    private let condition = StorageConditionLock()
    // Guarded by `condition`.
    private var pending: [Slot] = []
    private var running = 0

    init(maxRunning: Int = 2, maxItems: Int = 64) {
        precondition(maxRunning >= 1 && maxItems >= 1, "a batch needs room for one PATCH")
        self.maxRunning = maxRunning
        self.maxItems = maxItems
    }

    /// Tests: PATCHes waiting for a batch to lead or to join.
    var waiting: Int { condition.withLock { pending.count } }

    /// Runs `item` in the next batch and returns its answer, once that batch has committed. `run`
    /// runs a batch (this caller's or others'), one answer per item in order, when this caller leads.
    func submit(_ item: Item, run: ([Item]) -> Answers) -> Result<PostgresPatch.Answer, any Error> {
        let slot = Slot(item)
        condition.lock()
        defer { condition.unlock() }
        pending.append(slot)
        while true {
            if let answer = slot.answer { return answer }
            if running < maxRunning, !pending.isEmpty {
                let batch = takeBatch()
                running += 1
                condition.unlock()
                let answers = run(batch.map(\.item))
                condition.lock()
                for (index, slot) in batch.enumerated() {
                    slot.answer = index < answers.count ? answers[index] : .failure(PostgresPatch.MissingAnswer())
                }
                running -= 1
                condition.broadcast()
                continue
            }
            condition.wait()
        }
    }

    /// The oldest pending items of the oldest one's table, in arrival order (the caller holds the lock).
    private func takeBatch() -> [Slot] {
        let table = pending[0].item.table
        var batch: [Slot] = []
        var rest: [Slot] = []
        for slot in pending {
            if slot.item.table == table, batch.count < maxItems { batch.append(slot) } else { rest.append(slot) }
        }
        pending = rest
        return batch
    }
}
