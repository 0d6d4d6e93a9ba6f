#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// Why the throwaway cluster could not be had. Tests that need it fail with this text; they never skip.
public struct ClusterError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }
}

/// The per-process home of the test clusters: one temp folder, the PostgreSQL binaries, and a
/// template data folder made by one `initdb`. Each cluster is a copy of the template (much faster
/// than initdb), so a test may stop and restart its own cluster without disturbing the others.
///
/// Clean-up: an atexit handler stops every cluster (immediate shutdown) and removes the folder
/// when the test process exits; a watchdog process does the same if the test process dies
/// without running it (a crash, SIGKILL), within a second or so.
final class ClusterHome: Sendable {
    let folder: String
    let binaries: String
    let template: String
    let log: String
    /// The password of the `postgres` superuser for TCP (SCRAM); unix sockets are trust.
    static let superuserPassword = "superuser-Pa55"

    static let shared: Result<ClusterHome, ClusterError> = make()

    private init(folder: String, binaries: String) {
        self.folder = folder
        self.binaries = binaries
        template = folder + "/template"
        log = folder + "/setup.log"
    }

    private static func make() -> Result<ClusterHome, ClusterError> {
        guard let binaries = findBinaries() else {
            return .failure(ClusterError(description: """
                PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found in $TODO_PG_BIN (when set), \
                /usr/lib/postgresql/*/bin or PATH. These tests need a real server and never skip: install it with \
                `apt-get install postgresql` (.ci/run does this when it is missing).
                """))
        }
        var template = Array("/tmp/todo-pg-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            return .failure(ClusterError(description: "cannot make a temp folder under /tmp: \(errnoText(errno))"))
        }
        let folder = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let home = ClusterHome(folder: folder, binaries: binaries)
        if geteuid() == 0 {
            guard let owner = getpwnam("postgres") else {
                return .failure(ClusterError(description: """
                    the tests run as root, and initdb refuses root, but there is no `postgres` user to run the server as: \
                    install the Debian package postgresql (it creates one) or run the tests as another user
                    """))
            }
            chown(home.folder, owner.pointee.pw_uid, owner.pointee.pw_gid)
        }
        home.registerCleanup()
        return home.initTemplate().map { home }
    }

    /// One initdb, then the configuration every cluster shares.
    private func initTemplate() -> Result<Void, ClusterError> {
        let passwordFile = folder + "/pwfile"
        writeFile(passwordFile, Self.superuserPassword + "\n")
        if geteuid() == 0 { Command.run(["chown", "postgres", passwordFile], log: log, asServerOwner: false) }
        let status = Command.run([binaries + "/initdb", "-D", template, "-U", "postgres", "-A", "trust", "--pwfile=" + passwordFile,
                                  "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"], log: log)
        guard status == 0 else {
            return .failure(ClusterError(description: "initdb failed (exit \(status)):\n\(tail(of: log))"))
        }
        writeFile(template + "/pg_hba.conf", """
            local all all trust
            host all all 127.0.0.1/32 scram-sha-256
            host all all ::1/128 scram-sha-256

            """)
        appendFile(template + "/postgresql.conf", """

            # todo tests: a throwaway cluster, speed over durability
            listen_addresses = '127.0.0.1'
            fsync = off
            synchronous_commit = off
            full_page_writes = off
            max_connections = 200
            shared_buffers = 16MB
            deadlock_timeout = 100ms
            password_encryption = 'scram-sha-256'

            """)
        return .success(())
    }

    func tail(of path: String) -> String {
        let text = readFile(path)
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(15).joined(separator: "\n")
    }

    /// $TODO_PG_BIN if set, else the highest /usr/lib/postgresql/N/bin with initdb and pg_ctl, else PATH.
    private static func findBinaries() -> String? {
        func usable(_ folder: String) -> Bool {
            access(folder + "/initdb", X_OK) == 0 && access(folder + "/pg_ctl", X_OK) == 0 && access(folder + "/postgres", X_OK) == 0
        }
        // An explicit folder is the only one looked at, so a wrong one fails rather than passing elsewhere.
        if let explicit = getenv("TODO_PG_BIN").map({ String(cString: $0) }) { return usable(explicit) ? explicit : nil }
        var versions: [Int] = []
        if let dir = opendir("/usr/lib/postgresql") {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if let version = Int(name) { versions.append(version) }
            }
            closedir(dir)
        }
        for version in versions.sorted(by: >) where usable("/usr/lib/postgresql/\(version)/bin") {
            return "/usr/lib/postgresql/\(version)/bin"
        }
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        return path.split(separator: ":").map(String.init).first(where: usable)
    }

    // MARK: - Clean-up

    private func registerCleanup() {
        Self.cleanupFolder = folder
        atexit {
            guard let folder = ClusterHome.cleanupFolder else { return }
            ClusterHome.stopAll(in: folder)
        }
        // If this process dies without atexit, the watchdog sees it gone and does the same.
        Command.detach("""
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            for pidfile in \(folder)/data-*/postmaster.pid; do
              [ -f "$pidfile" ] && kill -QUIT "$(head -n 1 "$pidfile")" 2>/dev/null
            done
            sleep 1; rm -rf \(folder)
            """)
    }

    nonisolated(unsafe) private static var cleanupFolder: String?

    /// SIGQUIT to every postmaster is PostgreSQL's immediate shutdown; then wait for them to go.
    private static func stopAll(in folder: String) {
        Command.run(["/bin/bash", "-c", """
            for pidfile in \(folder)/data-*/postmaster.pid; do
              [ -f "$pidfile" ] || continue
              pid=$(head -n 1 "$pidfile"); kill -QUIT "$pid" 2>/dev/null
              for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
            done
            rm -rf \(folder)
            """], log: "/dev/null", asServerOwner: false)
    }
}

public func writeFile(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

func appendFile(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

func readFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return "(cannot read \(path))" }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
