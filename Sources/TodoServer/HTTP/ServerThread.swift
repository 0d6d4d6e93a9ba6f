#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// Starts plain detached pthreads for the accept loop and for each connection.
///
/// Why not the cooperative pool or Dispatch's global queues: connection threads block in `poll`
/// and in the application for as long as a client stays connected. Blocking the pool (two threads
/// on a two-core machine) would stall every `async` caller in the process, and Dispatch's pool
/// is not meant for work that blocks indefinitely. Owners learn of the end through the body itself
/// (the server uses a `DispatchGroup`), so threads are detached and never joined.
enum ServerThread {
    /// Stack for threads that run the application: generous, since request handling recurses
    /// (JSON and `$filter` parsers); untouched pages cost no memory.
    static let stackBytes = 4 << 20

    private final class Start {
        let body: @Sendable () -> Void
        init(body: @escaping @Sendable () -> Void) {
            self.body = body
        }
    }

    /// Runs `body` on a new thread.
    static func spawn(_ body: @escaping @Sendable () -> Void) throws(HTTPServerError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, stackBytes)

        let context = Unmanaged.passRetained(Start(body: body)).toOpaque()
        #if os(Linux)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let code = pthread_create(&thread, &attributes, { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            start.body()
            return nil
        }, context)
        if code != 0 {
            Unmanaged<Start>.fromOpaque(context).release()
            throw HTTPServerError(operation: "pthread_create", code: code, reason: errnoText(code))
        }
    }
}
