/// What must be durable before an answer may be sent: nothing ("durable already"), or table logs
/// through given positions.
///
/// Why a value: the embedded storage appends a write, applies it, and returns at once, handing
/// back this ticket instead of waiting for the fsync. Whoever sends the answer settles the tickets
/// of the answers it sends together (`settle`), one wait per log, so N pipelined writes cost about
/// one fsync, not N; tools and tests that answer one request at a time `wait()` at once. A store
/// that commits synchronously (PostgreSQL) hands back `.durable`.
///
/// A write and a read are held to one rule: what an answer reports or shows must be durable. A
/// write's ticket runs through the end of its record; a read's through the end of what the log
/// held when it read, since its snapshot may hold a write that will be answered 503 (issue 17).
/// So one position per log is all a ticket keeps.
public struct DurabilityTicket: Sendable {
    /// One table's log, and how far it must be durable.
    struct Wait: Sendable {
        let log: LogGroupCommit
        var through: UInt64
    }

    private(set) var waits: [Wait] = []

    /// Nothing to wait for.
    public static let durable = DurabilityTicket()

    /// Durable once `log` is durable through `lsn`. Positions count the bytes appended since the
    /// log was opened, so through 0 is durable already (a table not written since the start).
    static func log(_ log: LogGroupCommit, through lsn: UInt64) -> DurabilityTicket {
        lsn == 0 ? .durable : DurabilityTicket(waits: [Wait(log: log, through: lsn)])
    }

    /// True when there is nothing to wait for.
    public var isDurable: Bool { waits.isEmpty }

    /// Adds what `other` needs: an answer made of several storage calls needs all of them.
    mutating func merge(_ other: DurabilityTicket) {
        for wait in other.waits { add(wait) }
    }

    /// Waits until the ticket holds; throws when it cannot (an fsync of one of its logs failed).
    public func wait() throws(StorageError) {
        if let failure = Self.settle([self])[0] { throw failure }
    }

    /// Settles the tickets of answers sent together: waits once per log, through the highest
    /// position any of them needs, then says for each ticket whether it holds (nil) or the error
    /// that stops it. A ticket fails only when it needs a log beyond what that log made durable
    /// before its fsync failed: an answer that saw only durable bytes is still sent.
    public static func settle(_ tickets: [DurabilityTicket]) -> [StorageError?] {
        var needed = DurabilityTicket()
        for ticket in tickets { needed.merge(ticket) }
        // A log whose wait failed, and how far it is durable all the same.
        var failures: [ObjectIdentifier: (error: StorageError, durable: UInt64)] = [:]
        for wait in needed.waits {
            do throws(StorageError) {
                try wait.log.waitDurable(through: wait.through)
            } catch {
                failures[ObjectIdentifier(wait.log)] = (error, wait.log.positions.durable)
            }
        }
        guard !failures.isEmpty else { return Array(repeating: nil, count: tickets.count) }
        return tickets.map { ticket in
            for wait in ticket.waits {
                if let failure = failures[ObjectIdentifier(wait.log)], wait.through > failure.durable { return failure.error }
            }
            return nil
        }
    }

    private mutating func add(_ wait: Wait) {
        if let index = waits.firstIndex(where: { $0.log === wait.log }) {
            waits[index].through = max(waits[index].through, wait.through)
        } else {
            waits.append(wait)
        }
    }
}
