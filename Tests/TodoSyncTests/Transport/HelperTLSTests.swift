#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
import TodoBasics
import TodoModel
@testable import TodoSync
import TodoTestSupport

/// https for real: the table server behind a TLS terminator (python3's `ssl`, a self-signed
/// certificate made with openssl), reached through the built helper.
///
/// Trusting the test certificate is the hard part: FoundationNetworking on Linux gives libcurl
/// the CA file libcurl was built with (Debian: /etc/ssl/certs/ca-certificates.crt), and reads no
/// variable for another one (`SSL_CERT_FILE` and `CURL_CA_BUNDLE` change nothing;
/// `URLSessionCertificateAuthorityInfoFile` is read only on Android). So the trusted case runs the
/// helper in a private mount namespace (`unshare -rm`) where our certificate is bind-mounted over
/// that file; the system's file is never touched. It is skipped where namespaces are not allowed.
@Suite(.enabled(if: TLSFixture.canTerminate, "needs python3 and openssl"))
struct HelperTLSTests {
    @Test func anUntrustedCertificateIsATLSFailureAndNothingIsSent() throws {
        let server = try LiveTableServer()
        let tls = try TLSFixture(backendPort: server.port)
        defer { tls.stop() }
        let transport = HelperTransport(endpoint: tls.endpoint, timeouts: TransportTimeouts(connect: 2, request: 2),
                                        helperPath: HelperBinary.path)
        defer { transport.close() }
        let failure = transport.send(Requests.get("/tables/todoitem")).failure
        guard case .tlsFailed(let reason)? = failure else {
            Issue.record("expected tlsFailed, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("certificate"))
        #expect(failure?.tlsTrouble == .untrusted(detail: "self-signed certificate"), "\(reason)")
        #expect(failure?.mayHaveReachedServer == false)
    }

    @Test func httpsToAPlainHTTPPortSaysSo() throws {
        let server = try LiveTableServer()
        let transport = HelperTransport(endpoint: RemoteEndpoint(scheme: .https, host: "127.0.0.1", port: server.port),
                                        timeouts: TransportTimeouts(connect: 2, request: 2), helperPath: HelperBinary.path)
        defer { transport.close() }
        let failure = transport.send(Requests.get("/tables/todoitem")).failure
        #expect(failure?.tlsTrouble == .notTLS, "\(String(describing: failure))")
    }

    /// Issue 20 item 3: a private CA that is not in the system's store, trusted with `--ca-file`.
    @Test func aPrivateCAGivenAsCAFileIsTrustedAndOnlyThen() throws {
        let server = try LiveTableServer()
        let tls = try TLSFixture(backendPort: server.port, privateCA: true)
        defer { tls.stop() }
        let timeouts = TransportTimeouts(connect: 2, request: 2)

        let system = HelperTransport(endpoint: tls.endpoint, timeouts: timeouts, helperPath: HelperBinary.path)
        defer { system.close() }
        let refused = system.send(Requests.insert(#"{"id":"ca","text":"private"}"#)).failure
        #expect(refused?.tlsTrouble == .untrusted(detail: "unable to get local issuer certificate"), "\(String(describing: refused))")
        #expect(refused?.mayHaveReachedServer == false)

        let trusting = HelperTransport(endpoint: tls.endpoint, timeouts: timeouts, caFile: tls.caFile, helperPath: HelperBinary.path)
        defer { trusting.close() }
        let inserted = try #require(trusting.send(Requests.insert(#"{"id":"ca","text":"private"}"#)).response)
        #expect(inserted.status == 201, "\(inserted.text)")
        let read = try #require(trusting.send(Requests.get("/tables/todoitem/ca")).response)
        #expect(read.status == 200)
        #expect(try JSONValue.parse(read.body)["text"]?.stringValue == "private")
        let missing = trusting.send(Requests.get("/tables/todoitem/nope")).response
        #expect(missing?.status == 404, "a real error status comes back as it is")
        // Every method the push sends, with its headers: PATCH and DELETE with If-Match.
        let version = try #require(read.headers["ETag"])
        let patch = HTTPRequest(method: "PATCH", target: "/tables/todoitem/ca",
                                headers: ["ZUMO-API-VERSION": "2.0.0", "Content-Type": "application/json", "If-Match": version],
                                body: Array(#"{"text":"changed"}"#.utf8))
        let patched = try #require(trusting.send(patch).response)
        #expect(patched.status == 200, "\(patched.text)")
        let stale = HTTPRequest(method: "DELETE", target: "/tables/todoitem/ca", headers: ["ZUMO-API-VERSION": "2.0.0", "If-Match": version])
        #expect(trusting.send(stale).response?.status == 412, "If-Match reached the server")
        let delete = HTTPRequest(method: "DELETE", target: "/tables/todoitem/ca",
                                 headers: ["ZUMO-API-VERSION": "2.0.0", "If-Match": try #require(patched.headers["ETag"])])
        #expect(trusting.send(delete).response?.status == 200, "a soft delete answers the deleted row")
        #expect(trusting.send(Requests.get("/tables/todoitem/ca")).response?.status == 404)

        // Another CA's file does not make the server trusted.
        let other = try TLSFixture(backendPort: server.port, privateCA: true)
        defer { other.stop() }
        let wrong = HelperTransport(endpoint: tls.endpoint, timeouts: timeouts, caFile: other.caFile, helperPath: HelperBinary.path)
        defer { wrong.close() }
        guard case .tlsFailed? = wrong.send(Requests.get("/tables/todoitem/ca")).failure else {
            Issue.record("a CA file of another CA must not be trusted")
            return
        }
    }

    @Test func aCAFileThatCannotBeReadIsATLSFailureNamingTheFix() throws {
        let server = try LiveTableServer()
        let tls = try TLSFixture(backendPort: server.port, privateCA: true)
        defer { tls.stop() }
        let transport = HelperTransport(endpoint: tls.endpoint, timeouts: TransportTimeouts(connect: 2, request: 2),
                                        caFile: tls.directory.sub("gone.pem"), helperPath: HelperBinary.path)
        defer { transport.close() }
        let failure = transport.send(Requests.get("/tables/todoitem")).failure
        guard case .unusableCAFile? = failure?.tlsTrouble else {
            Issue.record("expected an unusable CA file, got \(String(describing: failure))")
            return
        }
        #expect(failure?.mayHaveReachedServer == false)
    }

    @Test(.enabled(if: TLSFixture.canTrustInNamespace, "needs unshare -rm and /etc/ssl/certs/ca-certificates.crt"))
    func aTrustedCertificateCarriesRequestsEndToEnd() throws {
        let server = try LiveTableServer()
        let tls = try TLSFixture(backendPort: server.port)
        defer { tls.stop() }
        let transport = HelperTransport(endpoint: tls.endpoint, timeouts: TransportTimeouts(connect: 2, request: 2),
                                        helperPath: try tls.trustingHelper())
        defer { transport.close() }
        let inserted = try #require(transport.send(Requests.insert(#"{"id":"tls","text":"secret"}"#)).response)
        #expect(inserted.status == 201)
        let read = try #require(transport.send(Requests.get("/tables/todoitem/tls")).response)
        #expect(try JSONValue.parse(read.body)["text"]?.stringValue == "secret")
    }
}

/// A certificate for 127.0.0.1 and a TLS terminator in front of `backendPort`. The certificate
/// is self-signed, or, with `privateCA`, signed by a throwaway CA (`ca.pem`) that no system
/// store holds.
final class TLSFixture: Sendable {
    let directory = TempDirectory("todo-tls")
    let port: Int
    private let terminator: HelperProcess

    var endpoint: RemoteEndpoint { RemoteEndpoint(scheme: .https, host: "127.0.0.1", port: port) }
    var caFile: String { directory.sub("ca.pem") }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `names`: the certificate's subjectAltName (a private CA's certificate only).
    init(backendPort: Int, privateCA: Bool = false, names: String = TLSFixture.localNames) throws {
        let dir = directory.path
        let made = TempDirectory.shell(privateCA ? "cd '\(dir)' && \(Self.privateCAScript(names: names))" : """
            cd '\(dir)' && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -keyout key.pem -out cert.pem -days 1 -subj /CN=127.0.0.1 \
            -addext subjectAltName=IP:127.0.0.1,DNS:localhost >/dev/null 2>&1
            """)
        guard made == 0 else { throw Failure(description: "openssl failed (\(made))") }
        try LocalFileSystem().writeFile(directory.sub("tls.py"), Array(Self.script.utf8), sync: false)
        // Spawned like a helper, so its stdout is a socket we read the port from, and it ends
        // when we close our end.
        let process = try HelperProcess.spawn(
            path: Self.python!, arguments: [directory.sub("tls.py"), "\(backendPort)", dir + "/cert.pem", dir + "/key.pem",
                                            dir + "/accepted.log"]
        ).mapError { Failure(description: "python3: \($0.reason)") }.get()
        var line: [UInt8] = []
        var byte: [UInt8] = [0]
        let deadline = Deadline(secondsFromNow: 10)
        while line.last != 0x0A, case .ready = DescriptorIO.wait(process.fd, for: Int16(POLLIN), until: deadline) {
            guard case .bytes = byte.withUnsafeMutableBytes({ DescriptorIO.readSome(process.fd, into: $0) }) else { break }
            line += byte
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingSuffix("\n")) else {
            process.terminate()
            throw Failure(description: "the TLS terminator did not start")
        }
        self.port = port
        terminator = process
    }

    /// TLS connections the terminator has accepted (handshake done) so far.
    var acceptedConnections: Int {
        ((try? LocalFileSystem().readFile(directory.sub("accepted.log"))) ?? nil).map { $0.filter { $0 == 0x0A }.count } ?? 0
    }

    func stop() {
        terminator.terminate()
        directory.remove()
    }

    /// A helper that trusts cert.pem: the real one, started in a mount namespace where cert.pem
    /// is bind-mounted over the CA file libcurl reads.
    func trustingHelper() throws -> String {
        let wrapper = directory.sub("trusting-helper")
        let script = """
            #!/bin/sh
            exec unshare -rm sh -c 'mount --bind "$0" \(Self.caFile) && exec "$@"' '\(directory.sub("cert.pem"))' '\(HelperBinary.path)' "$@"

            """
        try LocalFileSystem().writeFile(wrapper, Array(script.utf8), sync: false)
        chmod(wrapper, 0o755)
        return wrapper
    }

    static let caFile = "/etc/ssl/certs/ca-certificates.crt"

    static let localNames = "IP:127.0.0.1,DNS:localhost"

    /// Makes ca.pem (a throwaway CA) and cert.pem/key.pem for `names` signed by it, in the current
    /// folder. Shared with the nginx test.
    static func privateCAScript(names: String = localNames) -> String {
        """
        { openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca-key.pem -out ca.pem \
        -days 1 -subj '/CN=todo test CA' -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
        && openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout key.pem -out cert.csr -subj /CN=127.0.0.1 \
        && printf 'subjectAltName=\(names)\\nbasicConstraints=CA:FALSE\\n' > cert.ext \
        && openssl x509 -req -in cert.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 1 -extfile cert.ext -out cert.pem; \
        } >/dev/null 2>&1
        """
    }

    static let python: String? = {
        let path = ProcessEnvironment.current()["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/python3" }.first { access($0, X_OK) == 0 }
    }()

    static let canTerminate: Bool = python != nil && TempDirectory.shell("command -v openssl >/dev/null 2>&1") == 0
        && LocalFileSystem().fileExists(HelperBinary.path)

    static let canTrustInNamespace: Bool = canTerminate && LocalFileSystem().fileExists(caFile)
        && TempDirectory.shell("unshare -rm sh -c 'mount --bind \(caFile) \(caFile)' >/dev/null 2>&1") == 0

    /// Accepts TLS on a free port (printed first), forwards bytes both ways to the backend.
    /// Closes inherited descriptors first, and exits when stdin closes (our end of the socket).
    static let script = #"""
        import os, socket, ssl, sys, threading
        os.closerange(3, 1024)
        backend, cert, key, accepted = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
        lock = threading.Lock()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        print(listener.getsockname()[1], flush=True)
        def pump(source, target):
            try:
                while True:
                    data = source.recv(65536)
                    if not data:
                        break
                    target.sendall(data)
            except OSError:
                pass
            for s in (source, target):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        def serve(client):
            try:
                secure = context.wrap_socket(client, server_side=True)
            except (OSError, ssl.SSLError):
                client.close()
                return
            with lock, open(accepted, "a") as log:
                log.write("accepted\n")
            upstream = socket.create_connection(("127.0.0.1", backend))
            threading.Thread(target=pump, args=(secure, upstream), daemon=True).start()
            pump(upstream, secure)
        def accept_forever():
            while True:
                client, _ = listener.accept()
                threading.Thread(target=serve, args=(client,), daemon=True).start()
        threading.Thread(target=accept_forever, daemon=True).start()
        sys.stdin.buffer.read()
        """#
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
