import TodoBasics
import TableProtocol

/// The https transport: requests go through `todo-remote-https` helper processes, as git's go
/// through `git-remote-https`.
///
/// Why a helper: TLS on Linux means Foundation's URLSession (libcurl underneath), and linking
/// Foundation into `todo` would cost every command its start-up time and size; `todo` itself
/// links no Foundation. Only https remotes pay for it, in a separate process.
///
/// One helper per pooled connection: each `send` takes an idle helper (or starts one), writes the
/// request to its stdin and reads the response from its stdout (`RemoteHelperProtocol`).
public final class HelperTransport: HTTPTransport {
    public let endpoint: RemoteEndpoint
    public let timeouts: TransportTimeouts
    /// The CA file the helper trusts instead of the system's store (`todo remote set --ca-file`).
    public let caFile: String?
    /// The helper's path, or why there is none (reported by every send).
    private let helper: Result<String, TransportFailure>
    private let pool: IdlePool<HelperProcess>

    /// The helper gets this long beyond connect + request timeouts before it is killed: it starts
    /// up, and URLSession on Linux only takes whole seconds (we round up).
    static let grace = 1.0

    public init(endpoint: RemoteEndpoint, timeouts: TransportTimeouts = TransportTimeouts(),
                caFile: String? = nil, helperPath: String, maxIdleHelpers: Int = 8) {
        self.endpoint = endpoint
        self.timeouts = timeouts
        self.caFile = caFile
        helper = .success(helperPath)
        pool = IdlePool(capacity: maxIdleHelpers)
    }

    /// Finds the helper as `HelperTransport.locateHelper` says; if it is missing, every send fails
    /// with that reason (nothing is sent).
    public init(endpoint: RemoteEndpoint, timeouts: TransportTimeouts = TransportTimeouts(),
                caFile: String? = nil, environment: [String: String], maxIdleHelpers: Int = 8) {
        self.endpoint = endpoint
        self.timeouts = timeouts
        self.caFile = caFile
        helper = Self.locateHelper(environment: environment).mapError { failure in
            .helperUnavailable(endpoint: endpoint.authority, failure)
        }
        pool = IdlePool(capacity: maxIdleHelpers)
    }

    deinit {
        close()
    }

    /// `TODO_REMOTE_HELPER` if set, else `todo-remote-https` next to the running executable
    /// (`/proc/self/exe`), else on `PATH`. For an early, clear error before any work is done.
    public static func locateHelper(environment: [String: String]) -> Result<String, HelperLaunchFailure> {
        HelperProcess.locate(environment: environment)
    }

    public func send(_ request: HTTPRequest) -> Result<HTTPResponse, TransportFailure> {
        let path: String
        switch helper {
        case .success(let found): path = found
        case .failure(let failure): return .failure(failure)
        }
        let bytes = HTTPSerializer.serialize(request, host: endpoint.hostHeader)
        var mayRetry = true
        while true {
            let (pooled, generation) = takeLiveHelper()
            let process: HelperProcess
            if let pooled {
                process = pooled
            } else {
                switch start(path) {
                case .success(let started): process = started
                case .failure(let failure): return .failure(failure)
                }
            }
            let deadline = Deadline(secondsFromNow: timeouts.connect + timeouts.request + Self.grace)
            switch DescriptorIO.writeAll(process.fd, bytes, until: deadline) {
            case .written:
                break
            case .timedOut, .failed:
                // The helper never took the request, so the server cannot have seen it.
                let ending = process.terminate()
                if pooled != nil && mayRetry {
                    mayRetry = false
                    continue
                }
                return .failure(.helperUnavailable(endpoint: endpoint.authority, .endedBeforeTheRequest(ending)))
            }
            return finish(process, generation: generation, method: request.method, deadline: deadline)
        }
    }

    public func close() {
        for process in pool.drain() { process.terminate() }
    }

    // MARK: - Steps

    private func finish(_ process: HelperProcess, generation: Int, method: String, deadline: Deadline) -> Result<HTTPResponse, TransportFailure> {
        let name = RemoteHelperProtocol.helperName
        switch ResponseReader.read(process.fd, method: method, until: deadline) {
        case .response(let response, let reusable):
            if !reusable || pool.put(process, generation: generation) != nil { process.terminate() }
            if let failure = RemoteHelperProtocol.failure(in: response, endpoint: endpoint, timeouts: timeouts) {
                return .failure(failure)
            }
            return .success(response)
        case .timedOut:
            process.terminate()
            return .failure(.timedOut(seconds: timeouts.request, requestSent: true))
        case .lost:
            let ending = process.terminate()
            return .failure(.connectionLost(reason: "\(name) ended (\(ending)) without answering", requestSent: true))
        case .malformed(let message):
            process.terminate()
            return .failure(.badResponse(reason: "\(name) answered something that is not HTTP: \(message)"))
        }
    }

    private func start(_ path: String) -> Result<HelperProcess, TransportFailure> {
        let invocation = RemoteHelperProtocol.Invocation(endpoint: endpoint, timeouts: timeouts, caFile: caFile)
        return HelperProcess.spawn(path: path, arguments: invocation.arguments).mapError { error in
            .helperUnavailable(endpoint: endpoint.authority, .cannotStart(path: path, reason: error.reason))
        }
    }

    /// An idle helper that is still running and quiet, or nil (start a new one).
    private func takeLiveHelper() -> (process: HelperProcess?, generation: Int) {
        while true {
            let (process, generation) = pool.take()
            guard let process else { return (nil, generation) }
            if DescriptorIO.isQuiet(process.fd) { return (process, generation) }
            process.terminate()
        }
    }
}
