#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One accepted TCP connection: waiting with a deadline, reading, writing, closing politely.
///
/// The socket stays blocking; every read is preceded by a `poll` with a deadline, so a silent client
/// can only ever hold its own thread, and only until its deadline. Writes rely on `SO_SNDTIMEO`:
/// a client that stops reading makes a send fail after that long without progress.
/// Failures of the peer (EPIPE, ECONNRESET, ...) are ordinary here: they end the connection, quietly.
struct ConnectionSocket: ~Copyable {
    let fd: Int32
    /// The connection's place among the server's connections; nil for one refused at once.
    let slot: ConnectionSlot?

    enum WaitOutcome {
        case readable
        case timedOut
        case stopRequested
    }

    enum ReadOutcome {
        case bytes(Int)
        /// The peer closed its side, or the connection failed.
        case closed
    }

    /// Takes ownership of `fd` (and of `slot`, released when the socket closes).
    init(adopting fd: Int32, sendTimeout: Duration, slot: ConnectionSlot? = nil) {
        self.fd = fd
        self.slot = slot
        // Small responses must leave at once, not wait for Nagle's algorithm to pair them with an ACK.
        try? SocketSyscalls.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1, "TCP_NODELAY")
        try? SocketSyscalls.setSendTimeout(fd, sendTimeout)
    }

    deinit {
        // First out of the table, then closed: the table may shut `fd` down until it is released.
        slot?.release()
        SocketSyscalls.closeDescriptor(fd)
    }

    /// Waits until the socket has input (or EOF), `deadline` passes, or `stop` fires.
    /// Input that is already there wins over `stop`, so a request that raced a shutdown is still read.
    func wait(until deadline: ContinuousClock.Instant, stop: StopSignal?) -> WaitOutcome {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        if let stop { fds.append(pollfd(fd: stop.readFD, events: Int16(POLLIN), revents: 0)) }
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return .timedOut }
            let ready: Int32
            do {
                ready = try SocketSyscalls.waitForEvents(&fds, timeoutMilliseconds: Self.milliseconds(remaining))
            } catch {
                return .readable  // cannot happen for a valid descriptor; let the read report it
            }
            if ready == 0 { continue }  // recheck: poll may wake a little before the deadline
            if fds[0].revents != 0 { return .readable }  // POLLIN, POLLHUP or POLLERR: recv will tell
            if fds.count > 1 && fds[1].revents != 0 { return .stopRequested }
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        do {
            let count = try SocketSyscalls.receiveBytes(fd, into: buffer)
            return count > 0 ? .bytes(count) : .closed
        } catch {
            return .closed
        }
    }

    /// Writes everything; false when the peer went away or stopped reading for the send timeout.
    func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let rest = UnsafeRawBufferPointer(rebasing: all[offset...])
                guard let sent = try? SocketSyscalls.sendBytes(fd, rest), sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// Best effort, never blocks: for the 503 answered from the accept thread.
    func writeWithoutWaiting(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { try? SocketSyscalls.sendBytes(fd, $0, dontWait: true) }
    }

    /// Closes after the last response when the peer may still be sending (a refused body, a half
    /// request, pipelined leftovers).
    ///
    /// Why: closing a socket that has unread input makes the kernel send RST, and an RST can destroy
    /// the response still sitting in the client's receive buffer, so the client would see "connection
    /// reset" instead of our 413. Instead: send FIN, then read and discard until the client closes or
    /// `deadline` passes (RFC 9112 §9.6; nginx calls it lingering close). A server shutdown cuts it
    /// short: the response and the FIN are already out. The close itself is `deinit`.
    consuming func closeLingering(until deadline: ContinuousClock.Instant, stop: StopSignal) {
        guard (try? SocketSyscalls.shutdownWrite(fd)) != nil else { return }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 1)
        defer { scratch.deallocate() }
        while case .readable = wait(until: deadline, stop: stop), case .bytes = read(into: scratch) {}
    }

    /// Whole milliseconds, rounded up so that a wait never ends before its deadline.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds.multipliedReportingOverflow(by: 1000)
        guard !total.overflow, total.partialValue < Int64(Int32.max) else { return Int32.max }
        let rounded = total.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(min(rounded, Int64(Int32.max)))
    }
}
