#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs OpenSSL calls with SIGPIPE blocked on this thread, and swallows a SIGPIPE they raised.
///
/// Why: OpenSSL writes to the socket with `write`, not `send(MSG_NOSIGNAL)`, so a server that
/// went away would kill `todo` with SIGPIPE instead of failing the request with EPIPE. Ignoring
/// SIGPIPE process-wide would change how `todo list | head` ends; a SIGPIPE from a socket write is
/// sent to the writing thread, so blocking it there for the call is enough.
enum SIGPIPEShield {
    static func run<T>(_ body: () -> T) -> T {
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        var saved = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipe, &saved)
        let alreadyPending = isPending()
        let result = body()
        if !alreadyPending && isPending() {
            var now = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&pipe, nil, &now)
        }
        pthread_sigmask(SIG_SETMASK, &saved, nil)
        return result
    }

    private static func isPending() -> Bool {
        var pending = sigset_t()
        sigpending(&pending)
        return sigismember(&pending, SIGPIPE) == 1
    }
}
