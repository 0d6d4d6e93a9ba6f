#if canImport(Glibc)
import Glibc
#endif

/// glibc gives each thread that allocates its own malloc arena, up to eight per core, and keeps
/// what each frees for that thread. A push's writers and readers (16 and 8 threads) each hold
/// their arena's high-water mark: a push of 100,000 pending inserts peaked at 124-131 MB with
/// glibc's 16 arenas on this 2-core machine, 71 MB with 4 (CPU 11.1-12.6 s against 10.9-13.7 s)
/// and 62-65 MB with 2 (CPU 12.7-14.6 s: threads wait for arenas). Issue 21: memory flat in
/// the queue's length. `mallopt` is not in Swift's Glibc module, so it is looked up at run time;
/// where it is missing (another libc) nothing changes.
public enum MallocArenas {
    /// Caps the arenas at `count` (over a `MALLOC_ARENA_MAX` in the environment: the caller
    /// decides, as a library reads no environment).
    public static func limit(to count: Int32) {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let arenaMax: Int32 = -8  // M_ARENA_MAX in malloc.h
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, count)
        #endif
    }
}
