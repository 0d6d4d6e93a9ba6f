import Synchronization
import Testing
import TodoBasics
import TodoTestSupport
@testable import PostgresClient

/// Start-ups a real server does not produce: the client refuses them, and says why.
@Suite struct StartupRefusalTests {
    /// Runs the client against a scripted server and returns the client's error.
    private func refusal(_ steps: [ScriptedServer.Step]) -> PostgresError? {
        let folder = TempDirectory("todo-pgfake")
        defer { folder.remove() }
        let server = ScriptedServer(folder: folder.path)
        let outcome = Mutex<PostgresError?>(nil)
        RealThreads.run(2) { index in
            if index == 0 {
                server.serve(steps)
            } else {
                let error = postgresError { _ = try PostgresConnection.connect(server.config) }
                outcome.withLock { $0 = error }
            }
        }
        return outcome.withLock { $0 }
    }

    /// The server-first message for the nonce the client sent in its SASLInitialResponse.
    private static func serverFirst(_ received: [[UInt8]]) -> String {
        let text = String(decoding: received.last ?? [], as: UTF8.self)
        let nonce = text.split(separator: ",").first { $0.hasPrefix("r=") }.map { String($0.dropFirst(2)) } ?? ""
        return "r=\(nonce)server-part,s=\(Base64.encode(Array("salt".utf8))),i=4096"
    }

    @Test func anMD5RequestIsRefusedWithTheFix() {
        let error = refusal([.send { _ in ScriptedServer.authentication(5, [1, 2, 3, 4]) }])
        guard case .authenticationFailed(let reason)? = error else {
            Issue.record("expected .authenticationFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("md5") && reason.contains("scram-sha-256"))
    }

    /// A server that says OK without ever proving it knows the password (no SASLFinal) is refused.
    @Test func scramWithoutTheServersProofIsRefused() {
        let error = refusal([
            .send { _ in ScriptedServer.authentication(10, Array("SCRAM-SHA-256".utf8) + [0, 0]) },
            .receive,
            .send { received in ScriptedServer.authentication(11, Array(Self.serverFirst(received).utf8)) },
            .receive,
            .send { _ in ScriptedServer.authentication(0) },
        ])
        guard case .authenticationFailed(let reason)? = error else {
            Issue.record("expected .authenticationFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("without proving it knows the password"))
    }

    @Test func scramWithAWrongServerSignatureIsRefused() {
        let error = refusal([
            .send { _ in ScriptedServer.authentication(10, Array("SCRAM-SHA-256".utf8) + [0, 0]) },
            .receive,
            .send { received in ScriptedServer.authentication(11, Array(Self.serverFirst(received).utf8)) },
            .receive,
            .send { _ in ScriptedServer.authentication(12, Array("v=\(Base64.encode([UInt8](repeating: 7, count: 32)))".utf8)) },
        ])
        guard case .authenticationFailed(let reason)? = error else {
            Issue.record("expected .authenticationFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("signature is wrong"))
    }
}
