#if canImport(Glibc)
import Glibc
#endif
import PostgresClient

/// A pretend server on a unix socket that answers the start-up with scripted messages: for the
/// refusals a real, well-behaved server never makes (an md5 request, a SCRAM exchange that skips
/// or fakes its proof).
final class ScriptedServer: @unchecked Sendable {
    let folder: String
    private let listener: Int32

    /// What the server does next: send bytes (made from what the client said so far), or read one message.
    enum Step: Sendable {
        case send(@Sendable (_ clientMessages: [[UInt8]]) -> [UInt8])
        case receive
    }

    init(folder: String) {
        self.folder = folder
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array("\(folder)/.s.PGSQL.5432".utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, byte) in path.enumerated() { raw[i] = byte } }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        listen(listener, 1)
    }

    deinit { close(listener) }

    var config: PostgresConfig {
        PostgresConfig(endpoint: .unixSocket(directory: folder, port: 5432), user: "u", database: "d", password: "pencil",
                       connectTimeout: 30)
    }

    /// Accepts one client, reads its start-up message, then plays `steps` and closes.
    func serve(_ steps: [Step]) {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        defer { close(client) }
        var received: [[UInt8]] = []
        guard let length = readExactly(client, 4) else { return }
        _ = readExactly(client, Int(bigEndian32(length)) - 4)
        for step in steps {
            switch step {
            case .send(let make):
                _ = make(received).withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            case .receive:
                guard let header = readExactly(client, 5), let body = readExactly(client, Int(bigEndian32(Array(header[1...]))) - 4) else { return }
                received.append(body)
            }
        }
        _ = readExactly(client, 1)  // until the client hangs up
    }

    /// An Authentication message (`R`) with `code` and `payload`.
    static func authentication(_ code: UInt32, _ payload: [UInt8] = []) -> [UInt8] {
        [UInt8(ascii: "R")] + bigEndianBytes(UInt32(8 + payload.count)) + bigEndianBytes(code) + payload
    }

    private func readExactly(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, count - done) }
            if n <= 0 { return nil }
            done += n
        }
        return bytes
    }

    private func bigEndian32(_ bytes: [UInt8]) -> UInt32 { bytes.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } }
    private static func bigEndianBytes(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) } }
}
