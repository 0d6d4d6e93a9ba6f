import Synchronization

/// Who holds the server's connection slots, and who gives one up when a new connection needs it.
///
/// Why (issue 17): each connection holds a thread and a slot until it closes, and an idle
/// connection used to keep its slot for the whole idle timeout. About 1,030 idle connections from
/// one address, with no app key, made every other client get 503 for a minute. The rules, applied
/// by the accept thread to each new connection:
///
/// 1. One peer address holds at most `maxPerAddress` connections, and the server at most
///    `maxConnections`.
/// 2. A new connection that would break a limit takes the slot of a connection within that limit
///    that is closing (its last answer written, only draining input), else of one that has only
///    been waiting for longer than `yieldAfter`: the one idle longest (between requests, or never
///    used), else the one whose request head has been arriving longest (a real client sends its
///    head in one packet; a slow-header attacker trickles it). That connection is shut down: its
///    thread sees the end of input and ends, without an answer, as after the idle timeout (a client
///    must be ready for a server closing an idle keep-alive connection anyway).
/// 3. Otherwise the new connection is refused at once (503, then close), without a thread.
///
/// So connections that only wait cannot keep a new request out for more than `yieldAfter`, and one
/// address never holds more than its share of the threads: the per-address bound is what protects
/// clients on other addresses from one attacker's busy connections; clients that share the
/// attacker's address (a NAT, a reverse proxy) share its bound, which is why it is an option.
/// Why `yieldAfter` rather than taking the slot of any idle connection: a flood of new connections
/// would then churn through each other, each one costing a thread, while refusing one costs a
/// write and a close; and a client's connection gets time to send its request.
///
/// Shutting a connection down from the accept thread is safe because the descriptor is closed only
/// after its entry left this table (`ConnectionSocket.deinit` releases the slot first), and the
/// shutdown happens under the same lock.
final class ConnectionTable: Sendable {
    /// What a connection is doing, as far as giving up its slot goes.
    enum Phase: Sendable {
        /// Waiting for a request: never used since `since`, or between requests since then.
        case idle(since: ContinuousClock.Instant)
        /// A request's head (request line and header fields) has been arriving since `since`.
        case head(since: ContinuousClock.Instant)
        /// Reading, answering, or receiving a body: never taken away.
        case busy
        /// The last answer is written and the connection only drains its input before closing
        /// (`ConnectionSocket.closeLingering`): taken first, whatever its age.
        case closing
    }

    enum Admission {
        case admitted(ConnectionSlot)
        /// The reason, for the 503's message.
        case refused(String)
    }

    private struct Entry {
        let fd: Int32
        let address: UInt32
        var phase: Phase
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var perAddress: [UInt32: Int] = [:]
        var nextID: UInt64 = 0
        var evictions = 0
    }

    let maxConnections: Int
    let maxPerAddress: Int
    let yieldAfter: Duration
    private let state = Mutex(State())

    init(maxConnections: Int, maxPerAddress: Int, yieldAfter: Duration) {
        self.maxConnections = max(1, maxConnections)
        self.maxPerAddress = max(1, maxPerAddress)
        self.yieldAfter = yieldAfter
    }

    /// Registers the new connection `fd` from `address` (IPv4, host byte order), making room as
    /// the rules above say, or refuses it.
    func admit(fd: Int32, address: UInt32, now: ContinuousClock.Instant = .now) -> Admission {
        state.withLock { state in
            if state.perAddress[address, default: 0] >= maxPerAddress {
                guard let victim = Self.victim(in: state, from: address, now: now, yieldAfter: yieldAfter) else {
                    return .refused("too many connections from \(Self.text(address)) (at most \(maxPerAddress) per "
                        + "address), and none has been idle for \(HTTPRequestLog.readable(yieldAfter)): finish or close some, then retry")
                }
                Self.evict(victim, &state)
            } else if state.entries.count >= maxConnections {
                guard let victim = Self.victim(in: state, from: nil, now: now, yieldAfter: yieldAfter) else {
                    return .refused("too many connections (at most \(maxConnections)), and none has been idle for "
                        + "\(HTTPRequestLog.readable(yieldAfter)): retry later")
                }
                Self.evict(victim, &state)
            }
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(fd: fd, address: address, phase: .idle(since: now))
            state.perAddress[address, default: 0] += 1
            return .admitted(ConnectionSlot(table: self, id: id))
        }
    }

    /// Open connections by phase, and how many gave up their slot so far (tests and diagnostics).
    var counts: (idle: Int, head: Int, busy: Int, closing: Int, evicted: Int) {
        state.withLock { state in
            var idle = 0, head = 0, busy = 0, closing = 0
            for entry in state.entries.values {
                switch entry.phase {
                case .idle: idle += 1
                case .head: head += 1
                case .busy: busy += 1
                case .closing: closing += 1
                }
            }
            return (idle, head, busy, closing, state.evictions)
        }
    }

    fileprivate func set(_ id: UInt64, _ phase: Phase) {
        state.withLock { state in state.entries[id]?.phase = phase }
    }

    /// Idempotent: an evicted connection's entry is already gone.
    fileprivate func release(_ id: UInt64) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return }
            Self.forget(entry.address, &state)
        }
    }

    /// The connection that gives up its slot: one closing; else, of those waiting longer than
    /// `yieldAfter`, the one idle longest, else the one whose head has been arriving longest; nil
    /// when none may.
    private static func victim(in state: State, from address: UInt32?, now: ContinuousClock.Instant,
                               yieldAfter: Duration) -> UInt64? {
        var idle: (id: UInt64, since: ContinuousClock.Instant)?
        var head: (id: UInt64, since: ContinuousClock.Instant)?
        for (id, entry) in state.entries where address == nil || entry.address == address {
            switch entry.phase {
            case .closing:
                return id
            case .idle(let since):
                if since.duration(to: now) > yieldAfter, idle == nil || since < idle!.since { idle = (id, since) }
            case .head(let since):
                if since.duration(to: now) > yieldAfter, head == nil || since < head!.since { head = (id, since) }
            case .busy:
                break
            }
        }
        return idle?.id ?? head?.id
    }

    private static func evict(_ id: UInt64, _ state: inout State) {
        guard let entry = state.entries.removeValue(forKey: id) else { return }
        // Wakes the connection's thread (its poll sees the end of input); it closes the descriptor
        // after its release, which waits for this lock: so this never touches a reused descriptor.
        SocketSyscalls.shutdownBoth(entry.fd)
        forget(entry.address, &state)
        state.evictions += 1
    }

    private static func forget(_ address: UInt32, _ state: inout State) {
        let left = state.perAddress[address, default: 1] - 1
        state.perAddress[address] = left > 0 ? left : nil
    }

    /// `127.0.0.1` for messages.
    static func text(_ address: UInt32) -> String {
        "\(address >> 24).\((address >> 16) & 0xFF).\((address >> 8) & 0xFF).\(address & 0xFF)"
    }
}

/// One connection's place in the `ConnectionTable`: its thread reports its phase here, and its
/// socket releases it just before closing.
final class ConnectionSlot: Sendable {
    private let table: ConnectionTable
    private let id: UInt64

    fileprivate init(table: ConnectionTable, id: UInt64) {
        self.table = table
        self.id = id
    }

    func enter(_ phase: ConnectionTable.Phase) { table.set(id, phase) }

    func release() { table.release(id) }
}
