import TableProtocol

/// Durability waits put off until a group of pipelined answers is about to be written.
///
/// Why: a client that pipelines N writes on one connection paid N sequential fsync waits, one per
/// request, although one fsync could cover them all. The connection handler makes one of these for
/// the answers it writes together. While it is installed, `StoredTable` appends and applies writes
/// without waiting and notes here what each answer needs: its writes durable, what its reads saw
/// visible. Before the answers go out, `settle()` waits once per table, on the highest position
/// noted, and names the answers whose writes did not become durable, with their error response.
///
/// Installed as a task-local (which also works on the server's plain threads), not passed as a
/// parameter: it then reaches `StoredTable` through `TableService` and `TableStorage` without
/// changing their signatures, `TableService` stays a function from request to response, and the
/// binding ends with the call, so it cannot leak into another request or thread. Without one
/// installed (tests, tools), every wait happens inline, as before.
///
/// It also carries each answer's failure response (hence `HTTPResponse` here): only the service
/// knows the error's form, and only the handler knows when the answers go out.
///
/// One connection thread uses it at a time: hence `@unchecked Sendable`, which task-locals need.
final class PendingDurability: @unchecked Sendable {
    @TaskLocal static var current: PendingDurability?

    /// What one answer needs from one table's log.
    private struct Need {
        let commit: LogGroupCommit
        /// End of the answer's write: if it does not become durable, the answer must not be sent.
        var write: UInt64 = 0
        /// End of what the answer's reads saw: if it does not become durable either, the answer
        /// must not be sent (it may show a write that was answered 503, issue 17).
        var read: UInt64 = 0
    }

    private struct Answer {
        var needs: [Need] = []
        /// What to send instead if a write of this answer does not become durable.
        var failureResponse: ((StorageError) -> HTTPResponse)?
    }

    private var answers: [Answer] = []

    /// Runs `respond` with this collector installed; what it defers belongs to a new answer, whose
    /// number `settle()` uses.
    func collect(_ respond: () -> HTTPResponse) -> (response: HTTPResponse, answer: Int) {
        answers.append(Answer())
        let response = Self.$current.withValue(self) { respond() }
        return (response, answers.count - 1)
    }

    /// The current answer reports a write that ends at `lsn` (storage calls this instead of waiting).
    func needDurable(_ commit: LogGroupCommit, through lsn: UInt64) {
        note(commit) { $0.write = max($0.write, lsn) }
    }

    /// The current answer shows what was in the log up to `lsn`.
    func needVisible(_ commit: LogGroupCommit, through lsn: UInt64) {
        note(commit) { $0.read = max($0.read, lsn) }
    }

    /// The response for the current answer if one of its writes or reads does not become durable
    /// (the service gives the one a failed write or read gets when it waits inline).
    func onFailure(_ response: @escaping (StorageError) -> HTTPResponse) {
        precondition(!answers.isEmpty, "PendingDurability is installed only by collect()")
        answers[answers.count - 1].failureResponse = response
    }

    /// Waits once per table for everything noted, then forgets it. Returns the answers that
    /// reported a write, or showed a read, that did not become durable, each with the response to
    /// send instead (`fallback` when the application gave none).
    func settle(fallback: (StorageError) -> HTTPResponse) -> [Int: HTTPResponse] {
        defer { answers.removeAll(keepingCapacity: true) }
        var tables: [ObjectIdentifier: (commit: LogGroupCommit, through: UInt64)] = [:]
        for answer in answers {
            for need in answer.needs {
                let through = max(need.write, need.read, tables[ObjectIdentifier(need.commit)]?.through ?? 0)
                tables[ObjectIdentifier(need.commit)] = (need.commit, through)
            }
        }
        // A table whose wait failed, and how far it is durable all the same.
        var failures: [ObjectIdentifier: (error: StorageError, durable: UInt64)] = [:]
        for (key, table) in tables {
            do throws(StorageError) {
                try table.commit.waitDurable(through: table.through)
            } catch {
                failures[key] = (error, table.commit.positions.durable)
            }
        }
        guard !failures.isEmpty else { return [:] }
        var replacements: [Int: HTTPResponse] = [:]
        for (number, answer) in answers.enumerated() {
            for need in answer.needs {
                guard let failure = failures[ObjectIdentifier(need.commit)], max(need.write, need.read) > failure.durable
                else { continue }
                replacements[number] = answer.failureResponse?(failure.error) ?? fallback(failure.error)
                break
            }
        }
        return replacements
    }

    private func note(_ commit: LogGroupCommit, _ change: (inout Need) -> Void) {
        // A need dropped here would let a write be answered before it is durable.
        precondition(!answers.isEmpty, "PendingDurability is installed only by collect()")
        let last = answers.count - 1
        if let index = answers[last].needs.firstIndex(where: { $0.commit === commit }) {
            change(&answers[last].needs[index])
        } else {
            var need = Need(commit: commit)
            change(&need)
            answers[last].needs.append(need)
        }
    }
}
