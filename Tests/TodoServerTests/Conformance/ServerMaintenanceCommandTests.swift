#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Issue 17 item 3 with the built `todo-server`: it refuses to start on a damaged log and says
/// where and what to do; `check` and `repair` report and salvage, with their exit statuses.
@Suite(.serialized) struct ServerMaintenanceCommandTests {
    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    /// Runs the binary to its end (killed after 20 s, so a server that starts serving instead of
    /// refusing fails the test rather than hanging it).
    static func run(_ arguments: [String], _ dir: StorageTestDirectory) throws -> Run {
        let out = dir.path + "/out", err = dir.path + "/err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let args = [ServerProcessTests.binary] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, args[0], &actions, nil, argv, environ)
        guard rc == 0 else { throw StorageError(.io, path: args[0], "spawn failed: \(errnoText(rc))") }
        var status: Int32 = 0
        var waited = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if waited == 2_000 { kill(pid, SIGKILL) }
            usleep(10_000)
            waited += 1
        }
        func text(_ path: String) -> String { String(decoding: StorageTestDirectory.read(path), as: UTF8.self) }
        return Run(status: (status >> 8) & 0xFF, out: text(out), err: text(err))
    }

    @Test func theServerRefusesADamagedLogAndCheckAndRepairSalvageIt() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        try storage.createTable("todoitem", softDelete: true)
        try storage.putTestRow("todoitem", "a", ["text": "kept"])
        let lastStart = StorageTestDirectory.read(dir.log("todoitem")).count
        let last = try storage.putTestRow("todoitem", "b", ["text": "rots"])
        storage.close()
        var bytes = StorageTestDirectory.read(dir.log("todoitem"))
        bytes[lastStart + 40] ^= 0x01
        StorageTestDirectory.write(dir.log("todoitem"), bytes)

        let start = try Self.run(["--data", dir.data, "--port", "0", "--quiet"], dir)
        #expect(start.status == 1)
        #expect(start.out.isEmpty, "it must not serve: \(start.out)")
        #expect(start.err.contains("'\(dir.log("todoitem"))' at byte \(lastStart): damaged record"), "\(start.err)")
        #expect(start.err.contains("todo-server repair --data '\(dir.data)'"), "\(start.err)")

        let check = try Self.run(["check", "--data", dir.data], dir)
        #expect(check.status == 1)
        #expect(check.out.contains("  damaged record at byte \(lastStart) "), "\(check.out)")
        #expect(StorageTestDirectory.read(dir.log("todoitem")) == bytes)

        let repair = try Self.run(["repair", "--data", dir.data], dir)
        #expect(repair.status == 0, "\(repair.err)")
        #expect(repair.out.contains("todoitem.log: kept 1 record (all that verify); moved 1 damaged record (at byte \(lastStart)) "
            + "to 'todoitem.log.damaged.1'"), "\(repair.out)")
        #expect(repair.out.contains("versions resume above \(last.version)"), "\(repair.out)")

        #expect(try Self.run(["check", "--data", dir.data], dir).status == 0)
        let usage = try Self.run(["check", "--bogus"], dir)
        #expect(usage.status == 2 && usage.err.contains("unexpected '--bogus'"), "\(usage.err)")
    }
}
