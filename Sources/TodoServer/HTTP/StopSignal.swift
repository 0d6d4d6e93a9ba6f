#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A one-shot broadcast that wakes every thread sitting in `poll`.
///
/// Why a pipe: threads wait in `poll` on their socket, and a condition variable cannot be waited on
/// together with a descriptor. `fire()` writes one byte and nobody ever reads it, so the read end
/// stays readable and every poller, present and future, sees it at once.
final class StopSignal: Sendable {
    /// Add this to a `poll` set; POLLIN on it means "stop".
    let readFD: Int32
    private let writeFD: Int32
    private let fired = Atomic<Bool>(false)

    init() throws(HTTPServerError) {
        (readFD, writeFD) = try SocketSyscalls.makePipe()
    }

    deinit {
        SocketSyscalls.closeDescriptor(readFD)
        SocketSyscalls.closeDescriptor(writeFD)
    }

    /// Cheap check for code that is not in `poll`, e.g. after the application answered.
    var isFired: Bool { fired.load(ordering: .acquiring) }

    /// Idempotent.
    func fire() {
        guard !fired.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // A full pipe (impossible: one byte) or any other failure still leaves `isFired` set;
        // pollers also re-check it whenever they wake.
        _ = try? SocketSyscalls.writeByte(writeFD)
    }
}
