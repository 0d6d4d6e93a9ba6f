#if canImport(Glibc)
import Glibc
#endif

/// Runs `body(i)` for every i in 0..<count, each on its own pthread, and waits for all of them.
///
/// Why not Dispatch or the cooperative pool: on a two-core machine they run two bodies at a time,
/// and a concurrency test needs every client really concurrent, blocked in its socket or in fsync.
public enum RealThreads {
    public static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        final class Work: @unchecked Sendable {
            let run: () -> Void
            init(_ run: @escaping () -> Void) { self.run = run }
        }
        var threads: [pthread_t] = []
        for i in 0..<count {
            let work = Unmanaged.passRetained(Work { body(i) }).toOpaque()
            var thread = pthread_t()
            let rc = pthread_create(&thread, nil, { arg in
                Unmanaged<Work>.fromOpaque(arg!).takeRetainedValue().run()
                return nil
            }, work)
            precondition(rc == 0, "pthread_create failed: \(rc)")
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
    }
}
