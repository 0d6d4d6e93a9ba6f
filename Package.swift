// swift-tools-version:6.0
import PackageDescription

/// `todo`: an offline-first record store with a git-style sync command line, and its table server.
/// Dependencies point one way: Basics and Model at the bottom, the executables at the top.
/// No package dependencies: the Swift toolchain only.
let package = Package(
    name: "todo",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "todo", targets: ["todo"]),
        .executable(name: "todo-server", targets: ["todo-server"]),
        .executable(name: "todo-remote-https", targets: ["todo-remote-https"]),
    ],
    targets: [
        // MARK: - Libraries

        /** Files, atomic writes, the store lock, syscalls, SHA-256, clock and id seams. No domain knowledge. */
        .target(name: "TodoBasics"),
        /** Pure domain values and rules: JSON, items, operations, collapse, merge, receipts. */
        .target(name: "TodoModel"),
        /** The `.todo` directory: layout, id encoding, transactions, recovery, doctor. */
        .target(name: "TodoStore", dependencies: ["TodoBasics", "TodoModel"]),
        /** Wire formats shared by client and server: generations, dates, OData, HTTP/1.1 codec. Pure. */
        .target(name: "TableProtocol", dependencies: ["TodoBasics", "TodoModel"]),
        /** The table server: protocol service, durable storage, HTTP/1.1 socket loop. */
        .target(name: "TodoServer", dependencies: ["TodoBasics", "TodoModel", "TableProtocol", "PostgresClient"]),
        /** Push, pull and the remote: transports, the table client, the sync engines. Never prints. */
        .target(name: "TodoSync", dependencies: ["TodoBasics", "TodoModel", "TodoStore", "TableProtocol"]),
        /** Commands, argument parsing and rendering. Owns the console and the environment. */
        .target(name: "TodoCLI", dependencies: ["TodoBasics", "TodoModel", "TodoStore", "TableProtocol", "TodoSync"]),
        /** Issue 18: a PostgreSQL client of our own (protocol 3.0, SCRAM-SHA-256, extended queries, pool). Never prints. */
        .target(name: "PostgresClient", dependencies: ["TodoBasics"]),

        // MARK: - Executables

        /** Issue 21: the Swift runtime linked in (`-static-stdlib`): each command saves 2 to 3 ms of CPU
            at start, spent loading and relocating libswiftCore and friends; libc stays shared
            (getaddrinfo and NSS for host names, dlopen of OpenSSL for https). */
        .executableTarget(name: "todo", dependencies: ["TodoCLI", "TodoBasics"],
                          linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux]))]),
        .executableTarget(name: "todo-server", dependencies: ["TodoServer"]),
        /** https for `todo` through URLSession, in its own process (the only target that links Foundation). */
        .executableTarget(name: "todo-remote-https", dependencies: ["TableProtocol", "TodoSync"]),

        // MARK: - Tests

        .target(name: "TodoTestSupport", dependencies: ["TodoBasics", "TodoModel", "TodoStore", "TodoSync", "TodoCLI", "PostgresClient"],
                path: "Tests/TodoTestSupport"),
        .testTarget(name: "TodoBasicsTests", dependencies: ["TodoBasics", "TodoTestSupport"]),
        .testTarget(name: "TodoModelTests", dependencies: ["TodoModel"]),
        .testTarget(name: "TodoStoreTests", dependencies: ["TodoStore", "TodoTestSupport"]),
        .testTarget(name: "TableProtocolTests", dependencies: ["TableProtocol", "TodoModel", "TodoBasics"]),
        .testTarget(name: "TodoServerTests", dependencies: ["TodoServer", "TableProtocol", "TodoTestSupport"]),
        .testTarget(name: "TodoCLITests", dependencies: ["TodoCLI", "TodoTestSupport"]),
        .testTarget(name: "TodoSyncTests", dependencies: ["TodoSync", "TodoServer", "TableProtocol", "TodoTestSupport"]),
        /** Against a throwaway PostgreSQL cluster the tests start (initdb once per run, stopped at exit). */
        .testTarget(name: "PostgresClientTests", dependencies: ["PostgresClient", "TodoBasics", "TodoTestSupport"]),
        /** Issue 5 item 1: the seeded multi-replica convergence simulation against a real server. */
        .testTarget(name: "TodoSimulationTests",
                    dependencies: ["TodoSync", "TodoServer", "TableProtocol", "TodoTestSupport", "TodoBasics", "TodoModel"]),
    ]
)
