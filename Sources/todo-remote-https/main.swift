#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TableProtocol
import TodoSync

// todo-remote-https: performs the HTTP requests `todo` writes to stdin with URLSession, and writes
// each response to stdout (the conversation is defined in `RemoteHelperProtocol`). It exists so
// that `todo` itself never links Foundation; see `HelperTransport`.

let invocation: RemoteHelperProtocol.Invocation
do {
    invocation = try RemoteHelperProtocol.Invocation(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    let usage = "usage: \(RemoteHelperProtocol.helperName) URL [--connect-timeout SECONDS] [--request-timeout SECONDS] [--ca-file PATH]"
    let message = switch error {
    case .usage: usage
    case .url(let bad): "'\(bad.url)' is not a remote URL (\(bad.problem)); \(usage)"
    }
    let line = "\(RemoteHelperProtocol.helperName): \(message)\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    exit(2)
}

/// Writes all of `bytes` to stdout; a reader that went away ends us (as SIGPIPE would).
func writeOut(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { all in
        var offset = 0
        while offset < all.count {
            let written = write(1, all.baseAddress! + offset, all.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                exit(1)
            }
        }
    }
}

/// URLSession with the system's CAs, or libcurl directly when a CA file is given (see `CurlClient`).
let perform: (HTTPRequest) -> HTTPResponse
if let caFile = invocation.caFile {
    do {
        let curl = try CurlClient(invocation, caFile: caFile)
        perform = curl.perform
    } catch {
        let line = "\(RemoteHelperProtocol.helperName): \(error.reason)\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        exit(2)
    }
} else {
    perform = SessionClient(invocation).perform
}
// Generous limits: the server, not this pipe, decides what is too large.
var parser = HTTPRequestParser(limits: HTTPLimits(maxTargetBytes: 1 << 20, maxHeaderBytes: 1 << 20, maxBodyBytes: 64 << 20))
var buffer = [UInt8](repeating: 0, count: 65_536)
while true {
    while let event = parser.next() {
        switch event {
        case .request(let request, _):
            writeOut(HTTPSerializer.serialize(perform(request)))
        case .expectContinue:
            continue  // the transport never waits for 100 Continue: the body follows anyway
        case .error(_, let message):
            // Our own bug, found before anything went out: say so, and that nothing was sent.
            let reason = "\(RemoteHelperProtocol.helperName) could not read the request: \(message)"
            let failure = TransportFailure.connectionLost(reason: reason, requestSent: false)
            writeOut(HTTPSerializer.serialize(RemoteHelperProtocol.response(for: failure)))
            exit(2)
        }
    }
    let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
    if count == 0 { exit(0) }
    if count < 0 {
        if errno == EINTR { continue }
        exit(1)
    }
    parser.feed(buffer[0..<count])
}
