#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import TodoBasics

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
