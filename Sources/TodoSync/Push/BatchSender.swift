import Synchronization
import TodoBasics

/// Sends one batch: its ops are dealt out over a few connections ("lanes"), and each lane
/// pipelines its ops `depth` at a time, so at most `lanes × depth` requests are in flight
/// (the push's bound, sync.md §4.1.2). With a bound of 1 the push is strictly sequential.
///
/// A lane follows every answered op to its decision (`OperationSender.run` with the answer)
/// before it sends its next requests. Ops sealed before this push go alone, because their
/// replay check must come first (§4.4.1). Once an op stops the push, no lane sends anything new;
/// answers to what was already sent are still followed (§4.1.3).
struct BatchSender {
    let sender: OperationSender
    let lanes: Int
    let depth: Int

    init(sender: OperationSender, ops: Int, bound: Int, connections: Int) {
        self.sender = sender
        // A transport that sends one request at a time per connection (the https helper) gets
        // 8 connections instead, as many as requests were in flight before pipelining.
        let connections = sender.client.transport.pipelines ? connections : max(connections, 8)
        lanes = max(1, min(connections, bound, ops))
        depth = max(1, bound / lanes)
    }

    /// One decision per context, in order.
    func send(_ contexts: [PushPlanner.Context]) -> [PushDecision] {
        let stopFlag = StopFlag()
        let lanes = self.lanes
        let perLane = WorkerPool.map(Array(0..<lanes), width: lanes) { lane in
            run(Array(stride(from: lane, to: contexts.count, by: lanes)), contexts, stopFlag)
        }
        var outcomes = [PushDecision](repeating: .notSent, count: contexts.count)
        for (index, outcome) in perLane.joined() { outcomes[index] = outcome }
        return outcomes
    }

    private func run(_ indices: [Int], _ contexts: [PushPlanner.Context], _ stopFlag: StopFlag) -> [(Int, PushDecision)] {
        var outcomes: [(Int, PushDecision)] = []
        func follow(_ index: Int, _ first: Result<TableReply, TransportFailure>?) {
            let outcome = sender.run(contexts[index], first: first, pushStopped: { stopFlag.isSet })
            if case .stop = outcome { stopFlag.set() }
            outcomes.append((index, outcome))
        }
        var k = 0
        while k < indices.count {
            if stopFlag.isSet {
                outcomes += indices[k...].map { ($0, .notSent) }
                break
            }
            if contexts[indices[k]].sealedAtStart {
                follow(indices[k], nil)
                k += 1
                continue
            }
            var chunk: [Int] = []
            while k < indices.count, chunk.count < depth, !contexts[indices[k]].sealedAtStart {
                chunk.append(indices[k])
                k += 1
            }
            let answers = sender.client.sendPipelined(chunk.map { sender.call(for: contexts[$0].op) }, purpose: .push)
            for (index, answer) in zip(chunk, answers) { follow(index, answer) }
        }
        return outcomes
    }
}

/// Set once an op stops the push; every lane reads it before sending or retrying.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
