#if canImport(Glibc)
import Glibc
#endif

/// Runs a program for the cluster set-up and waits for it, its output appended to a log file.
///
/// Through bash, which first closes every descriptor above 2: the test process has sockets and
/// pipes of other tests open, and a postmaster started by pg_ctl would otherwise keep them (and
/// `swift test`'s output pipe) open for as long as it runs.
enum Command {
    /// `argv` run as the `postgres` user when the tests run as root (initdb refuses root).
    @discardableResult
    static func run(_ argv: [String], log: String, asServerOwner: Bool = true) -> Int32 {
        let prefix = asServerOwner && geteuid() == 0 ? ["runuser", "-u", "postgres", "--"] : []
        let script = """
            exec </dev/null >>"$1" 2>&1; shift
            for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-"; done 2>/dev/null
            exec "$@"
            """
        return spawn(["/bin/bash", "-c", script, "bash", log] + prefix + argv, wait: true)
    }

    /// Starts a shell script in its own session and does not wait (the watchdog).
    static func detach(_ script: String) {
        let wrapper = """
            for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-"; done 2>/dev/null
            exec </dev/null >/dev/null 2>&1
            setsid bash -c "$1" &
            """
        spawn(["/bin/bash", "-c", wrapper, "bash", script], wait: true)
    }

    @discardableResult
    private static func spawn(_ argv: [String], wait: Bool) -> Int32 {
        var pointers: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], nil, nil, &pointers, environ)
        guard rc == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
