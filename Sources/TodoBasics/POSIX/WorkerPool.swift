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
        var ids: [pthread_t] = []
        for _ in 1..<threads {
            let context = Unmanaged.passRetained(shared as AnyObject).toOpaque()
            var id = pthread_t()
            let started = pthread_create(&id, nil, { raw in
                guard let raw else { return nil }
                (Unmanaged<AnyObject>.fromOpaque(raw).takeRetainedValue() as? any Drainable)?.drain()
                return nil
            }, context)
            if started == 0 { ids.append(id) } else { Unmanaged<AnyObject>.fromOpaque(context).release() }
        }
        shared.drain()
        for id in ids { pthread_join(id, nil) }
        return shared.results()
    }

    /// Runs `background` on a new thread while `body` runs on this one; returns when both are
    /// done. The push commits one batch while the next one is on the wire.
    public static func alongside<R>(_ background: @escaping @Sendable () -> Void, _ body: () -> R) -> R {
        let task = start(background)
        let result = body()
        task.join()
        return result
    }

    /// Starts `body` on its own thread and returns at once; `BackgroundTask.join` waits for it.
    /// The store makes a commit durable this way while the next commit is being written.
    public static func start<R: Sendable>(_ body: @escaping @Sendable () -> R) -> BackgroundTask<R> {
        let task = BackgroundTask<R>()
        let job = Job { task.finish(body()) }
        let box = Unmanaged.passRetained(job as AnyObject).toOpaque()
        let started = pthread_create(&task.thread, nil, { raw in
            guard let raw else { return nil }
            (Unmanaged<AnyObject>.fromOpaque(raw).takeRetainedValue() as? Job)?.work()
            return nil
        }, box)
        if started != 0 {
            Unmanaged<AnyObject>.fromOpaque(box).release()
            task.finish(body())
            task.joined = true
        }
        return task
    }

    fileprivate final class Job: @unchecked Sendable {
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
    }

    private final class Shared<T: Sendable, R: Sendable>: Drainable, @unchecked Sendable {
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

private protocol Drainable: AnyObject { func drain() }

/// Work running on a thread of its own (`WorkerPool.start`). Join it once; a task dropped
/// without a join is joined by `deinit`, so no thread outlives its owner.
public final class BackgroundTask<R: Sendable>: @unchecked Sendable {
    fileprivate var thread = pthread_t()
    fileprivate var joined = false
    private let result = Mutex<R?>(nil)
    private let done = Atomic<Bool>(false)

    fileprivate init() {}

    fileprivate func finish(_ value: R) {
        result.withLock { $0 = value }
        done.store(true, ordering: .releasing)
    }

    /// True once the work has returned (joining will not wait).
    public var isFinished: Bool { done.load(ordering: .acquiring) }

    /// Waits for the work and returns its result.
    public func join() -> R {
        if !joined {
            pthread_join(thread, nil)
            joined = true
        }
        return result.withLock { $0! }
    }

    deinit {
        if !joined { pthread_join(thread, nil) }
    }
}
