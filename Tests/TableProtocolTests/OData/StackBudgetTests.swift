#if os(Linux)
import Glibc
import Testing
@testable import TableProtocol

/// The depth limits exist so that no filter can exhaust a thread's stack (§8.2, §8.6.5). These
/// tests run the deepest inputs the limits allow on a thread with a small, fixed stack: 2 MiB,
/// where debug builds need under 1 MiB and release builds about 0.2 MiB. Linux only: it starts
/// the thread with POSIX calls.
@Suite("Stack budget of the deepest filters")
struct StackBudgetTests {
    static let stackBytes = 2 << 20

    /// A closure handed to a new thread.
    private final class Job: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread with a stack of `bytes`, and waits for it. A stack overflow
    /// crashes the test process, which fails the run.
    private static func onSmallStack(bytes: Int, _ body: @escaping () -> Void) throws {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        try #require(pthread_attr_setstacksize(&attributes, bytes) == 0)
        var thread = pthread_t()
        let job = Unmanaged.passRetained(Job(body))
        let created = pthread_create(&thread, &attributes, { argument in
            guard let argument else { return nil }
            Unmanaged<Job>.fromOpaque(argument).takeRetainedValue().body()
            return nil
        }, job.toOpaque())
        if created != 0 { job.release() }
        try #require(created == 0)
        pthread_join(thread, nil)
    }

    static let deepest: [String] = [
        String(repeating: "(", count: 100) + "text eq 'x'" + String(repeating: ")", count: 100),
        String(repeating: "length(", count: 100) + "text" + String(repeating: ")", count: 100) + " eq 1",
        String(repeating: "not ", count: 100) + "complete",
        "priority" + String(repeating: " add 1", count: FilterParser.maximumHeight - 1),
        String(repeating: "(", count: 99) + "priority" + String(repeating: " add 1", count: FilterParser.maximumHeight - 1)
            + String(repeating: ")", count: 99),
        String(repeating: "not (1 add ", count: 50) + "1" + String(repeating: ")", count: 50),
        String(repeating: "(a eq 1 or ", count: 99) + "b" + String(repeating: ")", count: 99),
    ]

    @Test("parse, evaluate, print, compare and release the deepest filters on a 2 MiB stack")
    func deepestFilters() throws {
        for text in Self.deepest {
            let outcome = Outcome()
            try Self.onSmallStack(bytes: Self.stackBytes) {
                do {
                    var expression: FilterExpression? = try ODataQueryOptions.parseFilter(text)
                    if let e = expression {
                        _ = e.evaluate(ODataTestTable.rows[0])
                        _ = e.description
                        _ = e == e
                        _ = e.referencedColumns
                    }
                    expression = nil
                    outcome.parsed = true
                } catch {
                    outcome.parsed = false
                }
            }
            #expect(outcome.parsed, "\(text.prefix(40))…")
        }
    }

    private final class Outcome: @unchecked Sendable {
        var parsed = false
    }
}
#endif
