#if canImport(Glibc)
import Glibc
#endif
import FuzzDriver
import TableProtocol
import TodoServer

/// Contract of the server's HTTP front: any bytes on a connection give complete requests and at
/// most one final error, and that error is a 4xx with a message. Every request that parses is
/// answered by the real `TableService`, never with a 5xx. Feeding the same bytes in two pieces
/// gives the same events (a read can end anywhere).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(start, count)
    let events = parse([bytes[...]], bytes)
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    if parse([bytes[..<split], bytes[split...]], bytes) != events {
        violation("splitting the input at \(split) changes the events", bytes)
    }
    for (index, event) in events.enumerated() {
        switch event {
        case .request(let request, _):
            let response = service.respond(to: request)
            if response.status >= 500 {
                violation("\(request.method) \(request.target) answered \(response.status)", bytes)
            }
        case .expectContinue:
            break
        case .error(let status, let message):
            guard index == events.count - 1 else { violation("events after an error", bytes) }
            guard (400..<500).contains(status), !message.isEmpty else {
                violation("parser error \(status) '\(message)'", bytes)
            }
            if service.errorResponse(status: status, message: message).status != status {
                violation("the service changed the status of a parse error", bytes)
            }
        }
    }
    return 0
}

/// Feeds the pieces in turn and drains; a parser that keeps producing events without input is a hang.
private func parse(_ pieces: [ArraySlice<UInt8>], _ input: [UInt8]) -> [HTTPParseEvent] {
    var parser = HTTPRequestParser()
    var events: [HTTPParseEvent] = []
    for piece in pieces {
        parser.feed(piece)
        while let event = parser.next() {
            events.append(event)
            if events.count > input.count * 2 + 16 { violation("the parser does not stop producing events", input) }
        }
    }
    return events
}

/// One server for the whole run, in `TODO_FUZZ_DATA` (run.sh points it at a temp folder).
private let service: TableService = {
    let directory = getenv("TODO_FUZZ_DATA").map { String(cString: $0) } ?? "/tmp/todo-fuzz-http-\(getpid())"
    do {
        return try TableService(configuration: ServiceConfiguration(), storage: TableStorage(directory: directory))
    } catch {
        fatalError("cannot start the table service in \(directory): \(error)")
    }
}()

@_cdecl("FuzzHTTP_main")
public func fuzzHTTPMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { fuzzHTTP($0, $1) }
}
