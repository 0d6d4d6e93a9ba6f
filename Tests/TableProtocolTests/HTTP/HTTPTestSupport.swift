import Testing
@testable import TableProtocol


/// Drives the parsers the way a socket loop would: feed a piece, then drain events.
enum HTTPTestSupport {
    static func bytes(_ text: String) -> [UInt8] {
        Array(text.utf8)
    }

    /// Feeds `pieces` in turn, draining after each. Records an issue (instead of hanging) when the
    /// parser keeps producing events without consuming input.
    static func requestEvents(
        _ pieces: [ArraySlice<UInt8>], limits: HTTPLimits = .requestDefaults,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [HTTPParseEvent] {
        var parser = HTTPRequestParser(limits: limits)
        var events: [HTTPParseEvent] = []
        let budget = pieces.reduce(0) { $0 + $1.count } * 2 + 16
        for piece in pieces {
            parser.feed(piece)
            while let event = parser.next() {
                events.append(event)
                if events.count > budget {
                    Issue.record("parser produced too many events", sourceLocation: sourceLocation)
                    return events
                }
            }
        }
        return events
    }

    static func requestEvents(_ input: [UInt8], limits: HTTPLimits = .requestDefaults) -> [HTTPParseEvent] {
        requestEvents([input[...]], limits: limits)
    }

    static func requestEvents(_ text: String, limits: HTTPLimits = .requestDefaults) -> [HTTPParseEvent] {
        requestEvents(bytes(text), limits: limits)
    }

    static func responseEvents(
        _ pieces: [ArraySlice<UInt8>], method: String = "GET", limits: HTTPLimits = .responseDefaults,
        finish: Bool = true
    ) -> [HTTPResponseParseEvent] {
        var parser = HTTPResponseParser(requestMethod: method, limits: limits)
        var events: [HTTPResponseParseEvent] = []
        for piece in pieces {
            parser.feed(piece)
            while let event = parser.next() { events.append(event) }
        }
        if finish {
            parser.finish()
            while let event = parser.next() { events.append(event) }
        }
        return events
    }

    /// The input whole, one byte at a time, and in two pieces split at every offset.
    static func splits(of input: [UInt8]) -> [(label: String, pieces: [ArraySlice<UInt8>])] {
        var result: [(String, [ArraySlice<UInt8>])] = [("whole", [input[...]])]
        result.append(("bytewise", input.indices.map { input[$0...$0] }))
        for offset in 0...input.count {
            result.append(("split at \(offset)", [input[..<offset], input[offset...]]))
        }
        return result
    }

    /// Asserts every way of splitting `input` gives the same request events, and returns them.
    @discardableResult
    static func requestEventsAllSplits(
        _ input: [UInt8], limits: HTTPLimits = .requestDefaults, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [HTTPParseEvent] {
        let expected = requestEvents([input[...]], limits: limits)
        for (label, pieces) in splits(of: input).dropFirst() {
            let actual = requestEvents(pieces, limits: limits)
            if actual != expected {
                Issue.record("\(label): \(actual) != \(expected)", sourceLocation: sourceLocation)
                break
            }
        }
        return expected
    }

    @discardableResult
    static func responseEventsAllSplits(
        _ input: [UInt8], method: String = "GET", sourceLocation: SourceLocation = #_sourceLocation
    ) -> [HTTPResponseParseEvent] {
        let expected = responseEvents([input[...]], method: method)
        for (label, pieces) in splits(of: input).dropFirst() {
            let actual = responseEvents(pieces, method: method)
            if actual != expected {
                Issue.record("\(label): \(actual) != \(expected)", sourceLocation: sourceLocation)
                break
            }
        }
        return expected
    }

    /// The requests in `events`, failing the test on anything else.
    static func requests(
        _ events: [HTTPParseEvent], sourceLocation: SourceLocation = #_sourceLocation
    ) -> [(request: HTTPRequest, keepAlive: Bool)] {
        events.compactMap { event in
            guard case .request(let request, let keepAlive) = event else {
                Issue.record("unexpected event \(event)", sourceLocation: sourceLocation)
                return nil
            }
            return (request, keepAlive)
        }
    }

    /// The status of the single error in `events`, or nil (recording an issue) when there is none.
    static func errorStatus(
        _ events: [HTTPParseEvent], sourceLocation: SourceLocation = #_sourceLocation
    ) -> (status: Int, message: String)? {
        guard case .error(let status, let message)? = events.last else {
            Issue.record("expected an error, got \(events)", sourceLocation: sourceLocation)
            return nil
        }
        return (status, message)
    }
}
