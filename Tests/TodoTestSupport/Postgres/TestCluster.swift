#if canImport(Glibc)
import Glibc
#endif
import PostgresClient
import TodoBasics

/// A running throwaway PostgreSQL server: a copy of the template data folder, listening on a
/// unix socket in its own folder (trust) and on a free TCP port on 127.0.0.1 (SCRAM-SHA-256).
///
/// `TestCluster.shared()` is started once per test process, lazily, and shared by the suites;
/// tests that stop or restart a server make their own with `TestCluster.make(name)`.
public final class TestCluster: Sendable {
    let home: ClusterHome
    public let name: String
    public let dataFolder: String
    public let socketFolder: String
    public let port: Int
    /// pg_ctl's output (written by this process) and the server's own log (written by the server).
    let log: String
    let serverLog: String

    /// The unprivileged role the shared cluster has for SCRAM tests (the app's kind of user).
    public static let appUser = "todo_app"
    public static let appPassword = "app-secret-42"

    private static let sharedCluster: Result<TestCluster, ClusterError> = {
        let cluster: TestCluster
        switch make("shared") {
        case .success(let made): cluster = made
        case .failure(let error): return .failure(error)
        }
        do {
            // A fixed test password: CREATE ROLE takes no parameters.
            try PostgresConnection.connect(cluster.socketConfig).execute(
                "CREATE ROLE \(appUser) LOGIN PASSWORD '\(appPassword)'")
            try PostgresConnection.connect(cluster.socketConfig).execute("GRANT ALL ON SCHEMA public TO \(appUser)")
        } catch {
            return .failure(ClusterError(description: "the shared test cluster started, but setting it up failed: \(error)"))
        }
        return .success(cluster)
    }()

    /// The cluster most tests share. Throws (so the test fails) with the reason when there is none.
    public static func shared() throws -> TestCluster {
        try sharedCluster.get()
    }

    private init(home: ClusterHome, name: String, port: Int) {
        self.home = home
        self.name = name
        dataFolder = home.folder + "/data-" + name
        socketFolder = home.folder + "/sock-" + name
        self.port = port
        log = home.folder + "/" + name + ".log"
        serverLog = dataFolder + "/server.log"
    }

    /// A new cluster from the template, started.
    public static func make(_ name: String) -> Result<TestCluster, ClusterError> {
        let home: ClusterHome
        switch ClusterHome.shared {
        case .success(let shared): home = shared
        case .failure(let error): return .failure(error)
        }
        var lastError = ClusterError(description: "no free port")
        for _ in 0..<3 {
            let cluster = TestCluster(home: home, name: name, port: freePort())
            Command.run(["rm", "-rf", cluster.dataFolder, cluster.socketFolder], log: home.log)
            guard Command.run(["cp", "-a", home.template, cluster.dataFolder], log: home.log) == 0,
                  Command.run(["mkdir", cluster.socketFolder], log: home.log) == 0 else {
                return .failure(ClusterError(description: "cannot copy the template cluster:\n\(home.tail(of: home.log))"))
            }
            switch cluster.start() {
            case .success: return .success(cluster)
            case .failure(let error): lastError = error  // most likely the port was taken meanwhile: another
            }
        }
        return .failure(lastError)
    }

    /// pg_ctl start, waiting until the server accepts connections.
    public func start() -> Result<Void, ClusterError> {
        let status = Command.run([home.binaries + "/pg_ctl", "-D", dataFolder, "-l", serverLog, "-w", "-t", "60",
                                  "-o", "-p \(port) -k \(socketFolder)", "start"], log: log)
        guard status == 0 else {
            return .failure(ClusterError(description: "pg_ctl start of the \(name) test cluster failed (exit \(status)):\n"
                                         + home.tail(of: log) + "\n" + home.tail(of: serverLog)))
        }
        return .success(())
    }

    /// pg_ctl stop in fast mode: every session gets 57P01, as in a restart or a failover.
    public func stop() -> Result<Void, ClusterError> {
        let status = Command.run([home.binaries + "/pg_ctl", "-D", dataFolder, "-m", "fast", "-w", "-t", "60", "stop"], log: log)
        guard status == 0 else {
            return .failure(ClusterError(description: "pg_ctl stop of the \(name) test cluster failed (exit \(status)):\n"
                                         + home.tail(of: log)))
        }
        return .success(())
    }

    /// pg_ctl restart in fast mode, as a Patroni switchover does to the old primary: every
    /// session ends with 57P01, and the server accepts connections again when this returns.
    public func restart() -> Result<Void, ClusterError> {
        let status = Command.run([home.binaries + "/pg_ctl", "-D", dataFolder, "-l", serverLog, "-m", "fast", "-w", "-t", "60",
                                  "-o", "-p \(port) -k \(socketFolder)", "restart"], log: log)
        guard status == 0 else {
            return .failure(ClusterError(description: "pg_ctl restart of the \(name) test cluster failed (exit \(status)):\n"
                                         + home.tail(of: log) + "\n" + home.tail(of: serverLog)))
        }
        return .success(())
    }

    /// Trust over the unix socket, as the superuser.
    public var socketConfig: PostgresConfig {
        PostgresConfig(endpoint: .unixSocket(directory: socketFolder, port: port), user: "postgres", database: "postgres")
    }

    /// SCRAM-SHA-256 over TCP.
    public func tcpConfig(user: String = TestCluster.appUser, password: String? = TestCluster.appPassword) -> PostgresConfig {
        PostgresConfig(endpoint: .tcp(host: "127.0.0.1", port: port), user: user, database: "postgres", password: password)
    }

    /// A port nobody listens on right now (bound to 0 and released; the kernel rotates them).
    private static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length)
                return getsockname(fd, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Unwraps a cluster result in a test: the test fails with the reason.
extension Result where Failure == ClusterError {
    public func orFail() throws -> Success { try get() }
}
