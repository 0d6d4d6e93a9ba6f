#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where a command's output goes. Data goes to `out`, messages to `err`. Live output is buffered
/// and flushed once at the end, so a command costs one write(2) per stream; stdout past 64 KB is
/// written as it comes (`list` of a million items starts printing at once and holds no output).
public final class Console: Sendable {
    private let outBuffer = Mutex<[UInt8]>([])
    private let errBuffer = Mutex<[UInt8]>([])
    private let live: Bool
    private let wroteOut = Mutex(false)
    static let streamThreshold = 1 << 16
    /// stderr is a terminal: progress and colour may be shown.
    public let errIsTerminal: Bool

    private init(live: Bool, errIsTerminal: Bool) {
        self.live = live
        self.errIsTerminal = errIsTerminal
    }

    public static func standard() -> Console { Console(live: true, errIsTerminal: isatty(2) == 1) }
    public static func capturing() -> Console { Console(live: false, errIsTerminal: false) }

    public func out(_ line: String) { outBuffer.withLock { $0.append(contentsOf: line.utf8); $0.append(10) }; stream() }
    public func err(_ line: String) { errBuffer.withLock { $0.append(contentsOf: line.utf8); $0.append(10) } }
    public func outRaw(_ bytes: [UInt8]) { outBuffer.withLock { $0.append(contentsOf: bytes) }; stream() }

    /// Whether some stdout was written already (it cannot be taken back).
    public var hasWrittenOut: Bool { wroteOut.withLock { $0 } }

    /// Drops stdout not written yet (a read retried from the start prints it again).
    public func discardUnwrittenOut() { outBuffer.withLock { $0.removeAll() } }

    /// Writes stdout once the buffer passes the threshold (live console only).
    private func stream() {
        guard live else { return }
        let bytes = outBuffer.withLock { b -> [UInt8] in
            guard b.count >= Self.streamThreshold else { return [] }
            defer { b.removeAll(keepingCapacity: true) }
            return b
        }
        guard !bytes.isEmpty else { return }
        wroteOut.withLock { $0 = true }
        Self.writeAll(1, bytes)
    }

    /// A progress line for long pushes and pulls: drawn over itself on stderr at once, and only
    /// when stderr is a terminal. Nothing is written (or captured) otherwise.
    public func progress(_ line: String) {
        guard live, errIsTerminal else { return }
        Self.writeAll(2, Array(("\r\u{1B}[K" + line).utf8))
    }

    /// Clears the progress line before the final output.
    public func endProgress() {
        guard live, errIsTerminal else { return }
        Self.writeAll(2, Array("\r\u{1B}[K".utf8))
    }

    /// Writes buffered output (live console only).
    public func flush() {
        guard live else { return }
        let out = outBuffer.withLock { b -> [UInt8] in defer { b.removeAll() }; return b }
        let err = errBuffer.withLock { b -> [UInt8] in defer { b.removeAll() }; return b }
        for (fd, bytes) in [(Int32(1), out), (Int32(2), err)] { Self.writeAll(fd, bytes) }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE && fd == 1 { endAsSIGPIPEWould() }
                break
            }
            offset += n
        }
    }

    /// The reader of stdout went away (`todo list --all | head -1`) while SIGPIPE was ignored (by
    /// a parent that spawned todo so, as Python does): end as the signal would have ended us, and
    /// as git does, rather than go on reading and rendering a million items for no one. Every
    /// commit is crash-safe, so ending here is as safe as the signal.
    private static func endAsSIGPIPEWould() -> Never {
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)
    }

    /// Captured text (capturing console only).
    public var capturedOut: String { outBuffer.withLock { String(decoding: $0, as: UTF8.self) } }
    public var capturedErr: String { errBuffer.withLock { String(decoding: $0, as: UTF8.self) } }
}
