import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking work (network requests) on a few real threads. GCD's pool stays near the core
/// count when threads block in sockets, so the push would not get its concurrency from it.
public enum WorkerPool {
    /// `body` for every element, at most `width` at a time; results in input order.
    public static func map<T: Sendable, R: Sendable>(_ items: [T], width: Int, _ body: @escaping @Sendable (T) -> R) -> [R] {
        let threads = min(max(width, 1), items.count)
        guard threads > 1 else { return items.map(body) }
        let shared = Shared(items: items, body: body)
        let helpers = DispatchSemaphore(value: 0)
        var started = 0
        for _ in 1..<threads where ThreadReserve.shared.run({ shared.drain(); helpers.signal() }) { started += 1 }
        shared.drain()
        for _ in 0..<started { helpers.wait() }
        return shared.results()
    }

    /// Runs `background` on another thread while `body` runs on this one; returns when both are
    /// done. The push commits one batch while the next one is on the wire.
    public static func alongside<R>(_ background: @escaping @Sendable () -> Void, _ body: () -> R) -> R {
        let task = start(background)
        let result = body()
        task.join()
        return result
    }

    /// Starts `body` on another thread and returns at once; `BackgroundTask.join` waits for it.
    /// The store makes a commit durable this way while the next commit is being written.
    public static func start<R: Sendable>(_ body: @escaping @Sendable () -> R) -> BackgroundTask<R> {
        let task = BackgroundTask<R>()
        if !ThreadReserve.shared.run({ task.finish(body()) }) { task.finish(body()) }
        return task
    }

    private final class Shared<T: Sendable, R: Sendable>: @unchecked Sendable {
        let items: [T]
        let body: @Sendable (T) -> R
        let next = Atomic<Int>(0)
        let slots: Mutex<[R?]>

        init(items: [T], body: @escaping @Sendable (T) -> R) {
            self.items = items
            self.body = body
            slots = Mutex([R?](repeating: nil, count: items.count))
        }

        func drain() {
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < items.count else { return }
                let result = body(items[index])
                slots.withLock { $0[index] = result }
            }
        }

        func results() -> [R] { slots.withLock { $0.map { $0! } } }
    }
}

/// Work running on another thread (`WorkerPool.start`). Join it once; a task dropped without a
/// join waits for its work in `deinit`, so no work outlives its owner.
public final class BackgroundTask<R: Sendable>: @unchecked Sendable {
    private var joined = false
    private let result = Mutex<R?>(nil)
    private let done = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    fileprivate init() {}

    fileprivate func finish(_ value: R) {
        result.withLock { $0 = value }
        done.store(true, ordering: .releasing)
        finished.signal()
    }

    /// True once the work has returned (joining will not wait).
    public var isFinished: Bool { done.load(ordering: .acquiring) }

    /// Waits for the work and returns its result.
    public func join() -> R {
        if !joined {
            finished.wait()
            joined = true
        }
        return result.withLock { $0! }
    }

    deinit {
        if !joined { finished.wait() }
    }
}

/// Threads kept waiting between jobs, so that work handed to "another thread" does not start one
/// each time: a push of 10,000 otherwise starts and ends about 540 threads (45 us each here).
/// Up to `kept` threads wait; more are started when all are busy, and end after their job.
final class ThreadReserve: @unchecked Sendable {
    static let shared = ThreadReserve(kept: 32)
    let kept: Int
    private let idle = Mutex<[ReservedThread]>([])

    init(kept: Int) { self.kept = kept }

    /// Threads waiting for a job.
    var waiting: Int { idle.withLock { $0.count } }

    /// Runs `job` on a waiting thread, or on a new one; false if no thread could be started.
    func run(_ job: @escaping @Sendable () -> Void) -> Bool {
        if let thread = idle.withLock({ $0.popLast() }) {
            thread.hand(job)
            return true
        }
        let thread = ReservedThread(reserve: self)
        thread.hand(job)
        let box = Unmanaged.passRetained(thread).toOpaque()
        var id = pthread_t()
        let started = pthread_create(&id, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<ReservedThread>.fromOpaque(raw).takeRetainedValue().loop()
            return nil
        }, box)
        guard started == 0 else {
            Unmanaged<ReservedThread>.fromOpaque(box).release()
            return false
        }
        pthread_detach(id)
        return true
    }

    /// Takes a thread whose job is done back into the reserve; false if it is full.
    fileprivate func park(_ thread: ReservedThread) -> Bool {
        idle.withLock { threads in
            guard threads.count < kept else { return false }
            threads.append(thread)
            return true
        }
    }
}

/// One thread of the reserve: runs the job it is handed, then waits in the reserve for the next.
private final class ReservedThread: @unchecked Sendable {
    let reserve: ThreadReserve
    private let wake = DispatchSemaphore(value: 0)
    /// Written before `wake` is signalled, read after it is waited for: never at the same time.
    private var job: (@Sendable () -> Void)?

    init(reserve: ThreadReserve) { self.reserve = reserve }

    func hand(_ job: @escaping @Sendable () -> Void) {
        self.job = job
        wake.signal()
    }

    func loop() {
        repeat {
            wake.wait()
            let current = job
            job = nil
            current?()
        } while reserve.park(self)
    }
}
