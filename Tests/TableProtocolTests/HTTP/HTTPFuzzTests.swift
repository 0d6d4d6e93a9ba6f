import Testing
import TodoBasics
@testable import TableProtocol

/// Seeded random input: the parsers must never crash or hang, must end every input with requests
/// and at most one final error, and must give the same answer however the input is split.
@Suite("HTTP parsers: seeded random input")
struct HTTPFuzzTests {
    typealias T = HTTPTestSupport

    static let seeds: [String] = [
        "GET / HTTP/1.1\r\nHost: h\r\n\r\n",
        "POST /tables/t HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello",
        "PATCH /tables/t/1 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x\r\nabc\r\n0\r\nT: 1\r\n\r\n",
        "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nDELETE /b HTTP/1.1\r\nContent-Length: 1\r\n\r\nx",
    ]

    /// One random input: pure noise, a valid message with a noisy tail, or a valid message with a few bytes changed.
    private func randomInput(_ generator: inout SplitMix64) -> (isNoise: Bool, bytes: [UInt8]) {
        let noise = { (count: Int, generator: inout SplitMix64) -> [UInt8] in
            (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        let seed = T.bytes(Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &generator)])
        switch Int.random(in: 0..<3, using: &generator) {
        case 0:
            return (true, noise(Int.random(in: 1...300, using: &generator), &generator))
        case 1:
            return (false, seed + noise(Int.random(in: 1...100, using: &generator), &generator))
        default:
            var mutated = seed + seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                let replacements: [UInt8] = [0x0D, 0x0A, 0x20, 0x3A, 0x30, 0x46, 0x00, 0xFF, 0x2C, 0x3B]
                mutated[index] = Bool.random(using: &generator)
                    ? replacements[Int.random(in: 0..<replacements.count, using: &generator)]
                    : UInt8.random(in: 0...255, using: &generator)
            }
            return (false, mutated)
        }
    }

    private func randomPieces(_ input: [UInt8], _ generator: inout SplitMix64) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        while start < input.count {
            let end = min(input.count, start + Int.random(in: 1...16, using: &generator))
            pieces.append(input[start..<end])
            start = end
        }
        return pieces
    }

    @Test func randomRequestsNeverCrashAndEndInRequestsOrAnError() {
        var generator = SplitMix64(seed: 0x5EED_0001)
        var pureNoiseInputs = 0
        var pureNoiseErrors = 0
        for round in 0..<2_000 {
            let (isNoise, input) = randomInput(&generator)
            let whole = T.requestEvents(input)
            let bytewise = T.requestEvents(input.indices.map { input[$0...$0] })
            let random = T.requestEvents(randomPieces(input, &generator))
            #expect(whole == bytewise, "round \(round): byte-wise differs for \(input)")
            #expect(whole == random, "round \(round): random split differs for \(input)")

            let errors = whole.enumerated().filter { if case .error = $0.element { true } else { false } }
            #expect(errors.count <= 1 && (errors.first?.offset ?? whole.count - 1) == whole.count - 1,
                    "round \(round): an error must be the last event")
            for event in whole {
                switch event {
                case .request(let request, _):
                    #expect(request.body.count <= input.count)
                case .error(let status, let message):
                    #expect([400, 413, 414, 431].contains(status))
                    #expect(!message.isEmpty)
                case .expectContinue:
                    break
                }
            }
            if isNoise && input.count >= 64 {
                pureNoiseInputs += 1
                if errors.count == 1 { pureNoiseErrors += 1 }
            }
        }
        // Noise is almost never a valid request start: nearly all of it must be rejected, not buffered.
        #expect(pureNoiseInputs > 300)
        #expect(pureNoiseErrors * 100 >= pureNoiseInputs * 99)
    }

    @Test func randomResponsesNeverCrashAndEndCleanly() {
        var generator = SplitMix64(seed: 0x5EED_0002)
        let seeds = [
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.0 200 OK\r\n\r\nuntil close",
        ].map(T.bytes)
        for round in 0..<1_000 {
            var input = seeds[Int.random(in: 0..<seeds.count, using: &generator)]
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                input[Int.random(in: 0..<input.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let whole = T.responseEvents([input[...]])
            let bytewise = T.responseEvents(input.indices.map { input[$0...$0] })
            #expect(whole == bytewise, "round \(round): byte-wise differs")
            let errorIndex = whole.firstIndex { if case .error = $0 { true } else { false } }
            #expect(errorIndex == nil || errorIndex == whole.count - 1, "round \(round)")
            #expect(!whole.isEmpty, "round \(round): after EOF the input must end in a response or an error")
        }
    }
}
