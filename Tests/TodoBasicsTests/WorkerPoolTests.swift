#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import TodoBasics
import Dispatch

@Suite struct WorkerPoolTests {
    /// `start` returns at once; the work runs on another thread and `join` hands back its result.
    @Test func aStartedTaskRunsAlongsideAndJoinsWithItsResult() {
        let gate = Atomic<Bool>(false)
        let task = WorkerPool.start { () -> Int in
            while !gate.load(ordering: .acquiring) { usleep(500) }
            return 42
        }
        #expect(!task.isFinished, "still waiting at the gate: start did not run it here")
        gate.store(true, ordering: .releasing)
        #expect(task.join() == 42)
        #expect(task.isFinished)
        #expect(task.join() == 42, "a second join returns the same result")
    }

    /// `alongside` returns when both sides are done, with the foreground's result.
    @Test func alongsideWaitsForTheBackground() {
        let done = Atomic<Int>(0)
        let result = WorkerPool.alongside({ usleep(20_000); done.add(1, ordering: .relaxed) }) { () -> String in "front" }
        #expect(result == "front")
        #expect(done.load(ordering: .relaxed) == 1)
    }
}

/// The kernel's id of the calling thread (glibc's `gettid` is not visible to Swift here).
func kernelThreadID() -> Int32 {
    var buffer = [CChar](repeating: 0, count: 64)
    let n = readlink("/proc/thread-self", &buffer, 63)
    guard n > 0 else { return -1 }
    let text = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return Int32(text.split(separator: "/").last.map(String.init) ?? "") ?? -1
}

@Suite struct ThreadReserveTests {
    /// Runs `job` through `reserve` and waits until it is done; returns the kernel id of its thread.
    static func runAndWait(_ reserve: ThreadReserve) -> pid_t {
        let done = DispatchSemaphore(value: 0)
        let tid = Atomic<Int32>(0)
        #expect(reserve.run { tid.store(kernelThreadID(), ordering: .releasing); done.signal() })
        done.wait()
        return tid.load(ordering: .acquiring)
    }

    /// A thread whose job is done waits for the next one: the second job runs on the same thread.
    @Test func aThreadIsReusedForTheNextJob() {
        let reserve = ThreadReserve(kept: 4)
        let first = Self.runAndWait(reserve)
        var waited = 0
        while reserve.waiting == 0 && waited < 2_000 { usleep(1_000); waited += 1 }
        #expect(reserve.waiting == 1)
        let second = Self.runAndWait(reserve)
        #expect(first != kernelThreadID(), "not run on the caller's thread")
        #expect(second == first)
    }

    /// Jobs that run at once get threads of their own; afterwards at most `kept` of them wait.
    @Test func atMostKeptThreadsWait() {
        let reserve = ThreadReserve(kept: 2)
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let tids = Mutex<Set<Int32>>([])
        for _ in 0..<5 {
            #expect(reserve.run { tids.withLock { _ = $0.insert(kernelThreadID()) }; gate.wait(); finished.signal() })
        }
        for _ in 0..<5 { gate.signal() }
        for _ in 0..<5 { finished.wait() }
        var waited = 0
        while reserve.waiting < 2 && waited < 2_000 { usleep(1_000); waited += 1 }
        usleep(20_000)
        #expect(tids.withLock { $0.count } == 5, "five threads for five jobs that wait on each other")
        #expect(reserve.waiting == 2)
    }
}
