import Glibc
import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// kill -9 during a stream of writes (checklist 135): every acknowledged write survives, nothing is
/// corrupted, and versions are never reused (136).
///
/// The writer is a child process: this very test binary, run again with a filter that selects only
/// `storageCrashChildWriter` and an environment variable that tells that test to write instead of
/// returning at once. So no extra executable target is needed. The child reports each write that
/// `write()` acknowledged on fd 3; the parent kills it with SIGKILL after a number of reports,
/// reopens the directory and checks that each thread's rows are exactly the state after its
/// acknowledged operations (or after one more: the write in flight may or may not have landed).
@Suite struct StorageCrashTests {
    static let childVariable = "TODO_STORAGE_CRASH_CHILD"
    static let threads = 4

    /// Operation `i` of a writer thread: inserts, updates (some soft-deleting), hard deletes.
    enum Operation: Equatable {
        case insert(String), update(String, deleted: Bool), remove(String)

        init(round: Int, thread: Int, _ i: Int) {
            let id = { (k: Int) in "r\(round)-t\(thread)-\(k)" }
            switch i % 5 {
            case 3: self = .update(id(i - 3), deleted: i % 10 == 3)
            case 4: self = .remove(id(i - 2))
            default: self = .insert(id(i))
            }
        }
    }

    /// The rows a thread's first `count` operations leave: id → (n, deleted, index of the last op).
    static func expectedState(round: Int, thread: Int, count: Int) -> [String: (n: Int, deleted: Bool, op: Int)] {
        var rows: [String: (n: Int, deleted: Bool, op: Int)] = [:]
        for i in 0..<count {
            switch Operation(round: round, thread: thread, i) {
            case .insert(let id): rows[id] = (i, false, i)
            case .update(let id, let deleted): rows[id] = (i, deleted, i)
            case .remove(let id): rows[id] = nil
            }
        }
        return rows
    }

    static var childTuning: TableStorage.Tuning { .compactingEarly(minimumRows: 16) }

    /// The child's job (a no-op in a normal test run).
    @Test func storageCrashChildWriter() throws {
        guard let dir = getenv(Self.childVariable).map({ String(cString: $0) }) else { return }
        let round = Int(String(cString: getenv("TODO_STORAGE_CRASH_ROUND")!))!
        let storage = try TableStorage(directory: dir, clock: .live, tuning: Self.childTuning)
        try storage.createTable("crash", softDelete: true)
        StorageTestThreads.run(Self.threads) { thread in
            for i in 0..<20_000 {
                let version = try! storage.write("crash") { w -> UInt64 in
                    let (v, u) = w.nextStamp()
                    switch Operation(round: round, thread: thread, i) {
                    case .insert(let id):
                        w.put(StoredRow(id: id, columns: ["n": .number(Double(i)), "pad": .string(String(repeating: "x", count: i % 97))],
                                        createdAt: u, updatedAt: u, version: v))
                    case .update(let id, let deleted):
                        var row = w.row(id: id)!
                        (row.version, row.updatedAt, row.deleted) = (v, u, deleted)
                        row.columns["n"] = .number(Double(i))
                        w.put(row)
                    case .remove(let id):
                        w.remove(id: id)
                    }
                    return v
                }
                let line = Array("\(thread) \(i) \(version)\n".utf8)
                _ = line.withUnsafeBytes { Glibc.write(3, $0.baseAddress, $0.count) }
            }
        }
    }

    @Test func acknowledgedWritesSurviveSIGKILL() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var ackedVersions: Set<UInt64> = []
        var survivors: [StoredRow] = []  // rows of earlier rounds, which later rounds never touch
        for (round, kills) in [25, 120, 400, 60, 900, 2_500, 250, 1_700].enumerated() {
            let acks = try Self.runChild(dir: dir.data, round: round, killAfter: kills)
            var acked = [Int](repeating: 0, count: Self.threads)
            for (thread, i, version) in acks {
                #expect(i == acked[thread], "thread \(thread) acknowledged op \(i) out of order")
                acked[thread] = i + 1
                #expect(ackedVersions.insert(version).inserted, "version \(version) acknowledged twice")
            }
            let versionOf = Dictionary(uniqueKeysWithValues: acks.map { ("\($0.0)-\($0.1)", $0.2) })

            let storage = try TableStorage(directory: dir.data, clock: .live, tuning: Self.childTuning)
            let rows = try storage.allRows("crash")
            #expect(Set(rows.map(\.version)).count == rows.count, "versions repeat")
            let old = rows.filter { !$0.id.hasPrefix("r\(round)-") }
            #expect(old == survivors, "round \(round) changed rows of earlier rounds")
            for thread in 0..<Self.threads {
                let prefix = "r\(round)-t\(thread)-"
                let actual = Dictionary(uniqueKeysWithValues: rows.filter { $0.id.hasPrefix(prefix) }.map { ($0.id, $0) })
                func matches(_ count: Int, checkVersions: Bool) -> Bool {
                    let expected = Self.expectedState(round: round, thread: thread, count: count)
                    guard expected.count == actual.count else { return false }
                    for (id, want) in expected {
                        guard let row = actual[id], row.columns["n"] == .number(Double(want.n)), row.deleted == want.deleted
                        else { return false }
                        if checkVersions && row.version != versionOf["\(thread)-\(want.op)"] { return false }
                    }
                    return true
                }
                let exact = matches(acked[thread], checkVersions: true)
                #expect(exact || matches(acked[thread] + 1, checkVersions: false),
                        "round \(round) thread \(thread): rows are not the state after \(acked[thread]) acknowledged ops")
            }
            // The next version is new even if the largest one was a hard delete or was compacted away.
            let next = try storage.putTestRow("crash", "probe-\(round)")
            #expect(next.version > ackedVersions.max()!)
            ackedVersions.insert(next.version)
            survivors = try storage.allRows("crash").filter { !$0.id.hasPrefix("r\(round + 1)-") }
            storage.close()
        }
    }

    /// Runs the child writer until it has acknowledged `killAfter` writes, then SIGKILLs it.
    static func runChild(dir: String, round: Int, killAfter: Int) throws -> [(Int, Int, UInt64)] {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw StorageError(.io, "pipe failed") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(fds[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 3)
        // The child's test-runner chatter goes to a file, read back only to explain a failure.
        let chatter = dir + ".child-output"
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, chatter, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        let executable = String(cString: realpath("/proc/self/exe", nil))
        let arguments = [executable, "--testing-library", "swift-testing", "--filter", "storageCrashChildWriter"]
        var environment: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            environment.append(String(cString: pointer))
            entry += 1
        }
        environment += ["\(childVariable)=\(dir)", "TODO_STORAGE_CRASH_ROUND=\(round)"]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(fds[1])
        guard spawned == 0 else { throw StorageError(.io, "posix_spawn failed: \(errnoText(spawned))") }

        var buffer: [UInt8] = []
        var acks: [(Int, Int, UInt64)] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var ended = false
        while acks.count < killAfter && !ended {
            var poller = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 60_000) > 0 else { break }  // no report for a minute: give up
            let n = read(fds[0], &chunk, chunk.count)
            if n <= 0 { ended = n == 0; if n < 0 && errno == EINTR { continue }; break }
            buffer += chunk[0..<n]
            while let newline = buffer.firstIndex(of: 0x0A) {
                let fields = String(decoding: buffer[..<newline], as: UTF8.self).split(separator: " ")
                buffer.removeSubrange(...newline)
                acks.append((Int(fields[0])!, Int(fields[1])!, UInt64(fields[2])!))
            }
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        // Reports that were in the pipe when the child died are acknowledged writes too.
        while true {
            let n = read(fds[0], &chunk, chunk.count)
            if n <= 0 { break }
            buffer += chunk[0..<n]
        }
        while let newline = buffer.firstIndex(of: 0x0A) {
            let fields = String(decoding: buffer[..<newline], as: UTF8.self).split(separator: " ")
            buffer.removeSubrange(...newline)
            acks.append((Int(fields[0])!, Int(fields[1])!, UInt64(fields[2])!))
        }
        if acks.count < killAfter {
            let output = String(decoding: StorageTestDirectory.read(chatter).suffix(2_000), as: UTF8.self)
            throw StorageError(.io, "the child writer stopped after \(acks.count) writes (round \(round)):\n\(output)")
        }
        return acks
    }
}
