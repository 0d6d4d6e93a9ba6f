import TodoTestSupport
import Testing
@testable import PostgresClient

/// What a thrown error was, for `#expect`s on its case and text.
func postgresError(_ body: () throws -> Void) -> PostgresError? {
    do {
        try body()
        return nil
    } catch let error as PostgresError {
        return error
    } catch {
        Issue.record("not a PostgresError: \(error)")
        return nil
    }
}

/// Opening sessions against the real throwaway server: both transports, both auth methods, and
/// the refusals an operator has to act on.
@Suite struct ConnectTests {
    @Test func trustOverTheUnixSocket() throws {
        let cluster = try TestCluster.shared()
        let connection = try PostgresConnection.connect(cluster.socketConfig)
        defer { connection.close() }
        let rows = try connection.query("SELECT current_user AS who, 40 + $1 AS answer", [.int(2)])
        #expect(try rows[0].decode("who", as: String.self) == "postgres")
        #expect(try rows[0].decode("answer", as: Int.self) == 42)
        #expect(connection.processID != 0)
        #expect(connection.serverParameters["server_version"]?.hasPrefix("1") == true)
    }

    @Test func scramSHA256OverTCP() throws {
        let cluster = try TestCluster.shared()
        let connection = try PostgresConnection.connect(cluster.tcpConfig())
        defer { connection.close() }
        let rows = try connection.query("SELECT current_user, inet_server_addr()::text")
        #expect(try rows[0].decode(0, as: String.self) == TestCluster.appUser)
        #expect(try rows[0].decode(1, as: String.self) == "127.0.0.1/32")
    }

    @Test func connectionStringsWithThePasswordFromTheEnvironment() throws {
        let cluster = try TestCluster.shared()
        let tcp = try PostgresConfig.parse("postgres://\(TestCluster.appUser)@127.0.0.1:\(cluster.port)/postgres",
                                           environment: ["PGPASSWORD": TestCluster.appPassword])
        let overTCP = try PostgresConnection.connect(tcp)
        #expect(try overTCP.query("SELECT current_user")[0].decode(0, as: String.self) == TestCluster.appUser)
        overTCP.close()

        let unix = try PostgresConfig.parse("postgresql:///postgres?host=\(cluster.socketFolder)&port=\(cluster.port)&user=postgres",
                                            environment: [:])
        let overSocket = try PostgresConnection.connect(unix)
        #expect(try overSocket.query("SELECT current_database()")[0].decode(0, as: String.self) == "postgres")
        overSocket.close()
    }

    @Test func aWrongPasswordIsAClearAuthenticationError() throws {
        let cluster = try TestCluster.shared()
        let error = postgresError { _ = try PostgresConnection.connect(cluster.tcpConfig(password: "not-the-password")) }
        guard case .authenticationFailed(let reason)? = error else {
            Issue.record("expected .authenticationFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("password authentication failed for user \"\(TestCluster.appUser)\""))
        #expect(reason.contains("PGPASSWORD"))
    }

    @Test func noPasswordWhenOneIsNeededSaysWhereToPutIt() throws {
        let cluster = try TestCluster.shared()
        let error = postgresError { _ = try PostgresConnection.connect(cluster.tcpConfig(password: nil)) }
        guard case .authenticationFailed(let reason)? = error else {
            Issue.record("expected .authenticationFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("PGPASSWORD") && reason.contains(TestCluster.appUser))
    }

    @Test func aMissingDatabaseCannotConnect() throws {
        let cluster = try TestCluster.shared()
        var config = cluster.socketConfig
        config.database = "no_such_db"
        let error = postgresError { _ = try PostgresConnection.connect(config) }
        guard case .cannotConnect(let reason)? = error else {
            Issue.record("expected .cannotConnect, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("\"no_such_db\" does not exist"))
    }

    /// Nothing listens: refused at once on both transports (not a wait for the connect timeout),
    /// with a message that names the place and asks whether the server runs.
    @Test func aStoppedServerCannotConnectAndSaysWhere() throws {
        let cluster = try TestCluster.make("stopped").get()
        try cluster.stop().get()
        var unix = cluster.socketConfig, tcp = cluster.tcpConfig()
        unix.connectTimeout = 600
        tcp.connectTimeout = 600
        let viaSocket = postgresError { _ = try PostgresConnection.connect(unix) }
        let viaTCP = postgresError { _ = try PostgresConnection.connect(tcp) }
        guard case .cannotConnect(let socketReason)? = viaSocket, case .cannotConnect(let tcpReason)? = viaTCP else {
            Issue.record("expected .cannotConnect twice, got \(String(describing: viaSocket)), \(String(describing: viaTCP))")
            return
        }
        #expect(socketReason.contains(cluster.socketFolder) && socketReason.contains("Is the server running"))
        #expect(tcpReason.contains("127.0.0.1:\(cluster.port)") && tcpReason.contains("Connection refused"))
        #expect(viaSocket!.description.hasPrefix("cannot connect to PostgreSQL: "))
    }
}
