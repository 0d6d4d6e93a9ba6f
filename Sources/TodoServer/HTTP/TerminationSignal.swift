#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Installs SIGINT/SIGTERM handling that calls `action` once, on an ordinary thread, and ignores
/// SIGPIPE (a client that disconnects must never kill the server).
///
/// How: the signal handler only writes one byte to a pipe (async-signal-safe); a watcher thread
/// waits on the pipe and calls `action`. Why not `sigwait`/`signalfd`: both need the signals blocked
/// in every thread, and the Swift runtime may already have started threads we cannot reach.
/// After the first signal the default disposition is restored, so a second Ctrl-C ends a shutdown
/// that hangs. Calling this again replaces the action.
public func onTerminationSignal(_ action: @escaping @Sendable () -> Void) {
    TerminationSignal.install(action)
}

enum TerminationSignal {
    private struct State {
        var action: (@Sendable () -> Void)?
        var installed = false
    }

    private static let state = Mutex(State())

    static func install(_ action: @escaping @Sendable () -> Void) {
        let firstTime = state.withLock { state in
            state.action = action
            defer { state.installed = true }
            return !state.installed
        }
        guard firstTime else { return }
        signal(SIGPIPE, SIG_IGN)
        guard let (readFD, writeFD) = try? SocketSyscalls.makePipe() else { return }
        terminationPipeWriteFD = writeFD
        do {
            try ServerThread.spawn { watch(readFD) }
        } catch {
            return  // without a watcher, leave the default dispositions: the signals still end the process
        }
        signal(SIGINT, handleTerminationSignal)
        signal(SIGTERM, handleTerminationSignal)
        // A parent may have started us with these signals blocked (a mask is inherited across
        // exec; libdispatch threads block everything): unblock them, or SIGTERM would never arrive.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Waits for the first byte the handler writes, restores the defaults, and runs the action.
    private static func watch(_ readFD: Int32) {
        var fds = [pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)]
        while true {
            _ = try? SocketSyscalls.waitForEvents(&fds, timeoutMilliseconds: -1)
            if (try? SocketSyscalls.readByte(readFD)) == true { break }
        }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        state.withLock { $0.action }?()
    }
}

/// Written once, before the handlers are installed; read only by the handler.
private nonisolated(unsafe) var terminationPipeWriteFD: Int32 = -1

/// Runs in signal context: only `write(2)`, and errno is preserved for the interrupted code.
private func handleTerminationSignal(_ signal: Int32) {
    let savedErrno = errno
    var byte: UInt8 = 1
    _ = write(terminationPipeWriteFD, &byte, 1)
    errno = savedErrno
}
