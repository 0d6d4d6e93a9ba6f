#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// A real `todo` process of one replica, started without a shell, so that a kill -9 lands at the
/// chosen moment after the start and the exit status says whether the command had finished.
enum TodoProcess {
    enum Outcome: Equatable, CustomStringConvertible {
        case exited(Int32)
        case killed
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .killed: "killed"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    static var binary: String { BinaryTutorialTests.build + "/todo" }

    /// Seconds on the monotonic clock: only ever used to choose kill moments, never asserted.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Starts `todo args` on the replica whose `.todo` is `store`, stdout and stderr to `output`.
    /// No retry waits (the server is local), a long request timeout for a loaded machine, and
    /// push batches of 3, so that kills also land while one batch's commit overlaps the next
    /// batch's requests, dealt over 2 connections, so that one of them carries a pipeline.
    static func start(_ args: [String], store: String, output: String) -> pid_t {
        let own = ["TODO_DIR", "TODO_RETRY_WAIT_SCALE", "TODO_REQUEST_TIMEOUT", "TODO_PUSH_BATCH", "TODO_PUSH_CONNECTIONS"]
        var env: [String] = []
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if !own.contains(where: { text.hasPrefix($0 + "=") }) { env.append(text) }
            p += 1
        }
        env += ["TODO_DIR=\(store)", "TODO_RETRY_WAIT_SCALE=0", "TODO_REQUEST_TIMEOUT=30", "TODO_PUSH_BATCH=3", "TODO_PUSH_CONNECTIONS=2"]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + args).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer {
            for a in argv + envp { free(a) }
            posix_spawn_file_actions_destroy(&actions)
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, binary, &actions, nil, argv, envp)
        precondition(rc == 0, "posix_spawn \(binary): \(rc)")
        return pid
    }

    /// Waits for the process (WNOHANG with `block` false: nil while it still runs).
    static func wait(_ pid: pid_t, block: Bool = true) -> Outcome? {
        var status: Int32 = 0
        let r = waitpid(pid, &status, block ? 0 : WNOHANG)
        guard r == pid else { return nil }
        if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
        return status & 0x7f == SIGKILL ? .killed : .signaled(status & 0x7f)
    }

    /// Runs to the end; returns the outcome and how long it took.
    static func run(_ args: [String], store: String, output: String) -> (outcome: Outcome, seconds: Double) {
        let started = now()
        let pid = start(args, store: store, output: output)
        let outcome = wait(pid) ?? .signaled(-1)
        return (outcome, now() - started)
    }

    /// Starts the command and kill -9s it `delay` seconds later unless it has exited by then.
    /// The exit status, not the clock, says which happened; `seconds` is how long it ran (to
    /// within half a millisecond when it finished first).
    static func kill(after delay: Double, _ args: [String], store: String, output: String) -> (outcome: Outcome, seconds: Double) {
        let started = now()
        let pid = start(args, store: store, output: output)
        while true {
            if let outcome = wait(pid, block: false) { return (outcome, now() - started) }
            let left = started + delay - now()
            if left <= 0 { break }
            usleep(UInt32(min(left, 0.0005) * 1_000_000))
        }
        Glibc.kill(pid, SIGKILL)
        return (wait(pid) ?? .signaled(-1), now() - started)
    }
}
