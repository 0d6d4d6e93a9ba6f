#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
import TodoBasics
import TodoTestSupport
@testable import TodoServer

/// Issue 17: the options of `todo-server` for limits, connections and the app key, and what they say
/// when given a bad value. Item 5: the key is read from a file or the environment, never needs the
/// command line, and each way it could be exposed is warned about.
@Suite struct ServerOptionsTests {
    static func parse(_ args: [String], _ environment: [String: String] = [:]) -> Result<ServerOptions, ServerOptions.Problem> {
        Result { () throws(ServerOptions.Problem) in try ServerOptions.parse(args, environment: environment) }
    }

    static func problem(_ args: [String], _ environment: [String: String] = [:]) -> String? {
        if case .failure(let problem) = parse(args, environment) { return problem.message }
        return nil
    }

    @Test func theAppKeyFromAFileOfMode0600() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let path = dir.sub("key")
        try LocalFileSystem().writeFile(path, Array("s3cret\r\nignored\n".utf8), sync: false)
        chmod(path, 0o600)
        let options = try ServerOptions.parse(["--app-key-file", path], environment: ["TODO_SERVER_APP_KEY": "env"])
        #expect(options.service.appKey == "s3cret", "the file wins over the environment")
        #expect(options.warnings.isEmpty)

        chmod(path, 0o644)
        let open = try ServerOptions.parse(["--app-key-file", path], environment: [:])
        #expect(open.warnings == ["warning: the app key file '\(path)' can be read by other users (mode 644); run: chmod 600 '\(path)'"])
    }

    @Test func theAppKeyFromTheEnvironmentOrTheCommandLine() throws {
        let fromEnvironment = try ServerOptions.parse([], environment: ["TODO_SERVER_APP_KEY": "env"])
        #expect(fromEnvironment.service.appKey == "env" && fromEnvironment.warnings.isEmpty)
        #expect(try ServerOptions.parse([], environment: [:]).service.appKey == nil)
        let inline = try ServerOptions.parse(["--app-key", "k"], environment: [:])
        #expect(inline.service.appKey == "k")
        #expect(inline.warnings == ["warning: --app-key puts the key in the process list, where every user of this machine can "
            + "read it; use --app-key-file FILE (mode 0600) or TODO_SERVER_APP_KEY instead"])
    }

    @Test func badAppKeySources() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        try LocalFileSystem().writeFile(dir.sub("empty"), Array("\n".utf8), sync: false)
        #expect(Self.problem(["--app-key", "k", "--app-key-file", dir.sub("empty")])
            == "give the app key once: --app-key-file FILE or --app-key KEY, not both")
        #expect(Self.problem(["--app-key-file", dir.sub("empty")])
            == "the app key file '\(dir.sub("empty"))' is empty: its first line must be the key")
        #expect(Self.problem(["--app-key-file", dir.sub("missing")]) == "the app key file '\(dir.sub("missing"))' does not exist")
        #expect(Self.problem([], ["TODO_SERVER_APP_KEY": ""])
            == "TODO_SERVER_APP_KEY is set but empty: unset it to serve without a key, or set it to the key")
    }

    @Test func theMasterKeyFromAFileOrTheEnvironmentNeverTheCommandLine() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let path = dir.sub("master")
        try LocalFileSystem().writeFile(path, Array("m4ster\n".utf8), sync: false)
        chmod(path, 0o600)
        let options = try ServerOptions.parse(["--master-key-file", path], environment: ["TODO_SERVER_MASTER_KEY": "env"])
        #expect(options.service.masterKey == "m4ster" && options.warnings.isEmpty)
        #expect(try ServerOptions.parse([], environment: ["TODO_SERVER_MASTER_KEY": "env"]).service.masterKey == "env")
        #expect(try ServerOptions.parse([], environment: [:]).service.masterKey == nil)
        chmod(path, 0o640)
        #expect(try ServerOptions.parse(["--master-key-file", path], environment: [:]).warnings
            == ["warning: the master key file '\(path)' can be read by other users (mode 640); run: chmod 600 '\(path)'"])
        #expect(Self.problem(["--master-key", "m"]) == "unknown option '--master-key'")
        #expect(Self.problem(["--master-key-file", dir.sub("none")]) == "the master key file '\(dir.sub("none"))' does not exist")
        #expect(Self.problem([], ["TODO_SERVER_MASTER_KEY": "k", "TODO_SERVER_APP_KEY": "k"])
            == "the master key is the app key: every app key holder would be admin; give the master key a value of its own")
    }

    @Test func theAccessConfigIsReadAndCheckedAtStartUp() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let path = dir.sub("access.json")
        try LocalFileSystem().writeFile(path, Array(#"{"tables": {"todoitem": {"delete": "admin", "owner": true}}}"#.utf8), sync: false)
        let options = try ServerOptions.parse(["--access-config", path], environment: ["TODO_SERVER_MASTER_KEY": "m"])
        #expect(options.service.access?.table("todoitem").owner == true)
        #expect(options.service.access?.table("todoitem").level(.read) == .user)
        #expect(Self.problem(["--access-config", path])
            == "the access config '\(path)': 'tables.todoitem.delete' is 'admin', but the server has no master key, so nobody "
            + "could do it: give --master-key-file FILE (or TODO_SERVER_MASTER_KEY)")
        #expect(Self.problem(["--access-config"]) == "option '--access-config' needs a value")
    }

    @Test func limitAndConnectionOptions() throws {
        let o = try ServerOptions.parse(["--max-tables", "5", "--max-columns", "10", "--max-rows-per-table", "100",
                                         "--max-row-size", "64K", "--max-memory", "512M", "--max-connections", "200",
                                         "--max-connections-per-address", "8", "--header-timeout", "5", "--idle-timeout", "30"],
                                        environment: [:])
        #expect(o.limits.maxTables == 5 && o.service.maxColumns == 10 && o.limits.maxRowsPerTable == 100)
        #expect(o.limits.maxRowBytes == 64 << 10 && o.limits.memoryBudget == 512 << 20)
        #expect(o.http.maxConnections == 200 && o.http.maxConnectionsPerAddress == 8)
        #expect(o.http.headerTimeout == .seconds(5) && o.http.idleTimeout == .seconds(30))

        let defaults = try ServerOptions.parse([], environment: [:])
        #expect(defaults.limits == StorageLimits() && defaults.service.maxColumns == 1024)
        #expect(defaults.http.maxConnections == 1024 && defaults.http.maxConnectionsPerAddress == 64)
        #expect(defaults.http.headerTimeout == .seconds(10) && defaults.http.idleTimeout == .seconds(60))

        #expect(Self.problem(["--max-memory", "lots"]) == "'--max-memory lots' must be a size in bytes, or with K, M or G (1024-based), e.g. 64K or 1G")
        #expect(Self.problem(["--max-columns", "2000"]) == "'--max-columns 2000' must be a number from 1 to 1024")
        #expect(Self.problem(["--max-connections-per-address", "0"]) == "'--max-connections-per-address 0' must be a number from 1 to 100000")
    }
}

/// Item 5 with the built binary: with `--app-key-file`, the key is nowhere in the process list,
/// and it is required.
@Suite(.serialized) struct ServerAppKeyProcessTests {
    @Test func theKeyFileKeepsTheKeyOutOfTheProcessList() throws {
        #expect(LocalFileSystem().fileExists(ServerProcessTests.binary), "build todo-server first (swift build)")
        let dir = TempDirectory("todo-server-key")
        defer { dir.remove() }
        let keyPath = dir.sub("app-key")
        try LocalFileSystem().writeFile(keyPath, Array("pr0cess-s3cret\n".utf8), sync: false)
        chmod(keyPath, 0o600)
        let (pid, port) = try ServerProcessTests.start(dir.sub("data"), dir, ["--app-key-file", keyPath])
        defer { kill(pid, SIGTERM); var s: Int32 = 0; waitpid(pid, &s, 0) }
        let cmdline = String(decoding: try #require(try LocalFileSystem().readFile("/proc/\(pid)/cmdline")), as: UTF8.self)
        #expect(cmdline.contains("--app-key-file") && !cmdline.contains("pr0cess-s3cret"))
        func status(_ headers: String) throws -> Int {
            let client = try RawHTTPClient(port: port)
            defer { client.close() }
            return try client.get("/tables/todoitem", headers: "ZUMO-API-VERSION: 2.0.0\r\n" + headers).status
        }
        #expect(try status("") == 401)
        #expect(try status("X-ZUMO-APPLICATION: wrong\r\n") == 401)
        #expect(try status("X-ZUMO-APPLICATION: pr0cess-s3cret\r\n") == 200)
    }
}
