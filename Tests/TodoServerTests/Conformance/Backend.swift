import PostgresClient
import Synchronization
import TodoTestSupport

/// The stores one conformance suite runs on unchanged (issue 18): each test that takes a
/// `Backend` argument runs once per store.
enum Backend: String, CaseIterable, CustomStringConvertible, Sendable {
    case embedded, postgres
    var description: String { rawValue }
}

/// A database of its own on the shared PostgreSQL test cluster, dropped when released: tests run
/// in parallel and each sees only its own tables.
final class TestDatabase: Sendable {
    let cluster: TestCluster
    let name: String
    private static let counter = Atomic(0)

    /// On `cluster`, or the shared cluster. `options`: more of `CREATE DATABASE`, fixed text of a test
    /// (e.g. another default collation).
    init(on other: TestCluster? = nil, options: String = "") throws {
        cluster = try other ?? TestCluster.shared()
        name = "todo_test_\(Self.counter.add(1, ordering: .relaxed).newValue)_\(UInt32.random(in: 0...UInt32.max))"
        let admin = try PostgresConnection.connect(cluster.socketConfig)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name) \(options)")  // a name of digits and letters made here: no parameter exists for it
    }

    /// The database over the cluster's unix socket, as the superuser (trust).
    var config: PostgresConfig {
        var config = cluster.socketConfig
        config.database = name
        return config
    }

    deinit {
        guard let admin = try? PostgresConnection.connect(cluster.socketConfig) else { return }
        _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        admin.close()
    }
}
