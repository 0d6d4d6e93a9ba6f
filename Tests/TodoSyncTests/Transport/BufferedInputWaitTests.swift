#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
import TodoBasics
@testable import TodoSync

/// A TLS stream can hold part of a record: input that is buffered (`hasBufferedInput`) yet
/// cannot be read (`receive` blocks). The readers must then wait on the socket, not call
/// `receive` again at once: that spun a CPU during https clones (found by the benchmark).
@Suite struct BufferedInputWaitTests {
    /// Always "holding input", never able to give any; fails loudly once it is asked too often.
    final class PartialRecordStream: ByteStream, @unchecked Sendable {
        let fd: Int32
        private let peer: Int32
        private(set) var receives = 0

        init() {
            var pair: [Int32] = [0, 0]
            _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair)
            fd = pair[0]
            peer = pair[1]
        }

        func send(_ bytes: UnsafeRawBufferPointer) -> StreamStep { .bytes(bytes.count) }

        func receive(into buffer: UnsafeMutableRawBufferPointer) -> StreamStep {
            receives += 1
            return receives > 100 ? .failed(code: 0, reason: "receive called again without waiting") : .blocked(events: Int16(POLLIN))
        }

        var hasBufferedInput: Bool { true }
        func isQuiet() -> Bool { true }

        func close() {
            Glibc.close(fd)
            Glibc.close(peer)
        }
    }

    @Test func oneResponseWaitsAfterABlockedReceive() {
        let stream = PartialRecordStream()
        defer { stream.close() }
        let outcome = ResponseReader.read(stream, method: "GET", until: Deadline(secondsFromNow: 0.05))
        #expect(outcome == .timedOut(receivedAny: false))
        #expect(stream.receives == 1)
    }

    @Test func pipelinedAnswersWaitAfterABlockedReceive() {
        let stream = PartialRecordStream()
        defer { stream.close() }
        let request = HTTPRequest(method: "GET", target: "/tables/todoitem", headers: ["ZUMO-API-VERSION": "2.0.0"])
        let outcome = PipelinedExchange(stream: stream, requests: [request, request], host: "h", timeout: 0.05).run()
        for result in outcome.results {
            guard case .failure(.timedOut(_, requestSent: true)) = result else {
                Issue.record("expected a timeout with the request sent, got \(result)")
                continue
            }
        }
        #expect(stream.receives == 1)
    }
}
