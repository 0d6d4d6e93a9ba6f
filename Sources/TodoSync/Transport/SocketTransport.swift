#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TableProtocol
import TodoBasics

/// The http and https transport: HTTP/1.1 over TCP sockets, through TLS for https
/// (`TLSStream`, the system's OpenSSL), with a keep-alive pool and pipelining for both.
///
/// Each `send` takes an idle connection (or opens one), writes the request and reads the response
/// with one deadline of `timeouts.request` for both, then pools the connection again unless
/// either side asked to close. Failures say precisely whether the request left (see
/// `TransportFailure.mayHaveReachedServer`), because the push decides on that whether a write
/// may have landed.
public final class SocketTransport: HTTPTransport {
    public let endpoint: RemoteEndpoint
    public let timeouts: TransportTimeouts
    private let pool: IdlePool<any ByteStream>
    /// For https: the TLS settings, or why there are none (every send fails with it, sending nothing).
    private let tls: Result<TLSContext, TransportFailure>?

    /// `caFile`: for https, the CA file trusted instead of the system's store (`todo remote set --ca-file`).
    /// `maxIdleConnections`: the pool keeps every connection a push's lanes hand back (16 over https),
    /// up to as many as the server takes from one address by default (`--max-connections-per-address`):
    /// one closed on the way back is opened again by the next batch, with a new TLS handshake.
    public init(endpoint: RemoteEndpoint, timeouts: TransportTimeouts = TransportTimeouts(), caFile: String? = nil,
                maxIdleConnections: Int = 64) {
        self.endpoint = endpoint
        self.timeouts = timeouts
        pool = IdlePool(capacity: maxIdleConnections)
        tls = endpoint.scheme == .https ? TLSContext.make(caFile: caFile) : nil
    }

    /// Whether https can run inside this process: the system's OpenSSL 3 can be loaded.
    public static var canSpeakTLS: Bool {
        if case .success = LibSSL.shared { return true }
        return false
    }

    deinit {
        close()
    }

    public func send(_ request: HTTPRequest) -> Result<HTTPResponse, TransportFailure> {
        let bytes = HTTPSerializer.serialize(request, host: endpoint.hostHeader)
        var mayRetry = true
        while true {
            let (stream, pooled, generation): (any ByteStream, Bool, Int)
            switch connection() {
            case .success(let got): (stream, pooled, generation) = got
            case .failure(let failure): return .failure(failure)
            }
            switch exchange(stream, bytes, method: request.method) {
            case .response(let response, let reusable):
                if reusable && request.keepAlive, pool.put(stream, generation: generation) == nil {
                    return .success(response)
                }
                stream.close()
                return .success(response)
            case .failure(let failure, let staleSuspect):
                stream.close()
                // A reused connection the server closed just as we wrote: retry once on a fresh one,
                // but only when the server cannot have acted on the request (it never got all of
                // it) or the method is safe to repeat (RFC 9112 §9.3.1).
                if pooled, mayRetry, staleSuspect,
                   !failure.mayHaveReachedServer || Self.safeToRepeat(request.method) {
                    mayRetry = false
                    continue
                }
                return .failure(failure)
            }
        }
    }

    /// Pipelines `requests` on one connection (see `PipelinedExchange`). A pooled connection that
    /// turns out closed before any answer is replaced once, for the requests that cannot have
    /// reached the server or are safe to repeat; the others report their failure.
    public func sendPipelined(_ requests: [HTTPRequest]) -> [Result<HTTPResponse, TransportFailure>] {
        // Requests after one that closes the connection would never be answered.
        guard requests.count > 1, requests.dropLast().allSatisfy(\.keepAlive) else { return requests.map { send($0) } }
        var results = [Result<HTTPResponse, TransportFailure>?](repeating: nil, count: requests.count)
        var pending = Array(requests.indices)
        var mayRetry = true
        while !pending.isEmpty {
            let (stream, pooled, generation): (any ByteStream, Bool, Int)
            switch connection() {
            case .success(let got): (stream, pooled, generation) = got
            case .failure(let failure):
                for i in pending { results[i] = .failure(failure) }
                return results.map { $0! }
            }
            let outcome = PipelinedExchange(stream: stream, requests: pending.map { requests[$0] }, host: endpoint.hostHeader,
                                            timeout: timeouts.request).run()
            if !(outcome.reusable && requests[pending.last!].keepAlive && pool.put(stream, generation: generation) == nil) {
                stream.close()
            }
            var again: [Int] = []
            for (i, result) in zip(pending, outcome.results) {
                results[i] = result
                if pooled, mayRetry, outcome.staleSuspect, case .failure(let failure) = result,
                   !failure.mayHaveReachedServer || Self.safeToRepeat(requests[i].method) {
                    again.append(i)
                }
            }
            mayRetry = false
            pending = again
        }
        return results.map { $0! }
    }

    public var pipelines: Bool { true }

    public func close() {
        for stream in pool.drain() { stream.close() }
    }

    // MARK: - One exchange

    private enum Exchange {
        case response(HTTPResponse, reusable: Bool)
        /// `staleSuspect`: the connection failed before any response byte arrived.
        case failure(TransportFailure, staleSuspect: Bool)
    }

    private func exchange(_ stream: any ByteStream, _ bytes: [UInt8], method: String) -> Exchange {
        let deadline = Deadline(secondsFromNow: timeouts.request)
        switch StreamIO.writeAll(stream, bytes, until: deadline) {
        case .written:
            break
        case .timedOut:
            return .failure(.timedOut(seconds: timeouts.request, requestSent: false), staleSuspect: false)
        case .failed(let code, let reason):
            let reason = code == EPIPE || code == ECONNRESET ? "the server closed the connection while the request was being sent" : reason
            return .failure(.connectionLost(reason: reason, requestSent: false), staleSuspect: true)
        }
        switch ResponseReader.read(stream, method: method, until: deadline) {
        case .response(let response, let reusable):
            return .response(response, reusable: reusable)
        case .timedOut:
            return .failure(.timedOut(seconds: timeouts.request, requestSent: true), staleSuspect: false)
        case .lost(let reason, let receivedAny):
            return .failure(.connectionLost(reason: reason, requestSent: true), staleSuspect: !receivedAny)
        case .malformed(let message):
            return .failure(.badResponse(reason: message), staleSuspect: false)
        }
    }

    // MARK: - Pool

    /// A quiet pooled connection, or a new one (for https, with its TLS handshake done within
    /// the connect timeout). `pooled` tells a retry whether a failure may just mean the server
    /// closed an idle connection.
    private func connection() -> Result<(stream: any ByteStream, pooled: Bool, generation: Int), TransportFailure> {
        if case .failure(let failure)? = tls { return .failure(failure) }
        let (pooled, generation) = takeQuietConnection()
        if let pooled { return .success((pooled, true, generation)) }
        let fd: Int32
        switch SocketConnector.connect(to: endpoint, timeout: timeouts.connect) {
        case .success(let connected): fd = connected
        case .failure(let failure): return .failure(failure)
        }
        guard case .success(let context)? = tls else { return .success((PlainStream(fd: fd), false, generation)) }
        return TLSStream.handshake(fd: fd, context: context, host: endpoint.host, until: Deadline(secondsFromNow: timeouts.connect))
            .map { ($0, false, generation) }
    }

    /// An idle connection that the server has not closed meanwhile, or nil (open a new one).
    /// A pooled connection with input waiting is either closed (EOF) or out of step (bytes no
    /// request asked for); both are discarded.
    private func takeQuietConnection() -> (stream: (any ByteStream)?, generation: Int) {
        while true {
            let (stream, generation) = pool.take()
            guard let stream else { return (nil, generation) }
            if stream.isQuiet() { return (stream, generation) }
            stream.close()
        }
    }

    /// Methods a client may repeat on its own: they do not change anything on the server.
    private static func safeToRepeat(_ method: String) -> Bool {
        ["GET", "HEAD", "OPTIONS"].contains(method)
    }
}
