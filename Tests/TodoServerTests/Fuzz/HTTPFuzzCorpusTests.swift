import Testing
import TableProtocol
import TodoBasics
import TodoTestSupport
@testable import TodoServer

/// The libFuzzer contract of `Fuzz/Sources/FuzzHTTP`, replayed on the shipped corpus
/// (`Fixtures/Fuzz/http`) and on seeded mutants of it: every input gives complete requests and at
/// most one final 4xx error with a message, the same however the bytes are split, and the real
/// `TableService` answers every request that parses without a 5xx.
@Suite("HTTP fuzz corpus")
final class HTTPFuzzCorpusTests {
    let directory = TempDirectory("todo-fuzz-http")
    let service: TableService

    init() throws {
        service = try TableService(configuration: ServiceConfiguration(),
                                   storage: TableStorage(directory: directory.sub("data")))
    }

    deinit { directory.remove() }

    static let dictionary = ["\r\n", "\r\n\r\n", "Content-Length: ", "Transfer-Encoding: chunked\r\n", "0\r\n\r\n",
                             "Expect: 100-continue\r\n", "ZUMO-API-VERSION: 2.0.0\r\n", "If-Match: \"x\"\r\n",
                             "HTTP/1.0", "%", "%2", "?$filter=", "&$top=", "/tables/todoitem/", ";", " ", ":"]

    @Test("every corpus input keeps the contract")
    func corpus() {
        for (name, bytes) in FuzzCorpus.inputs("http") {
            check(bytes, name)
        }
    }

    @Test("3000 seeded mutants of the corpus keep the contract")
    func mutants() {
        let corpus = FuzzCorpus.inputs("http").map(\.bytes)
        for (index, input) in FuzzCorpus.mutants(of: corpus, count: 3000, seed: 0xF022_4774, dictionary: Self.dictionary)
            .enumerated() {
            check(input, "mutant \(index) (seed 0xF0224774)")
        }
    }

    private func check(_ input: [UInt8], _ name: String) {
        let events = Self.events([input[...]])
        let split = input.isEmpty ? 0 : Int(input[0]) % (input.count + 1)
        #expect(Self.events([input[..<split], input[split...]]) == events, "\(name): split at \(split) differs")
        for (index, event) in events.enumerated() {
            switch event {
            case .request(let request, _):
                let status = service.respond(to: request).status
                #expect(status < 500, "\(name): \(request.method) \(request.target) answered \(status)")
            case .expectContinue:
                break
            case .error(let status, let message):
                #expect(index == events.count - 1, "\(name): events after an error")
                #expect((400..<500).contains(status) && !message.isEmpty, "\(name): \(status) \(message)")
                #expect(service.errorResponse(status: status, message: message).status == status, "\(name)")
            }
        }
    }

    private static func events(_ pieces: [ArraySlice<UInt8>]) -> [HTTPParseEvent] {
        var parser = HTTPRequestParser()
        var events: [HTTPParseEvent] = []
        let budget = pieces.reduce(0) { $0 + $1.count } * 2 + 16
        for piece in pieces {
            parser.feed(piece)
            while let event = parser.next() {
                events.append(event)
                if events.count > budget {
                    Issue.record("the parser does not stop producing events")
                    return events
                }
            }
        }
        return events
    }
}
