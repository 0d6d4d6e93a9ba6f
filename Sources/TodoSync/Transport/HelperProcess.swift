#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// One running `todo-remote-https`: its pid and our end of the socket that is its stdin and stdout.
///
/// Why a socket pair and not two pipes: `socketpair` takes SOCK_CLOEXEC atomically (Swift's Glibc
/// module does not export `pipe2`, and a `pipe` + `fcntl` window would let a process spawned by
/// another thread inherit our end, so the helper would never see EOF), and `send` with
/// MSG_NOSIGNAL turns a dead helper into EPIPE instead of a SIGPIPE that would kill us. To the
/// helper it is just stdin and stdout.
struct HelperProcess: Sendable {
    let pid: pid_t
    let fd: Int32

    /// Starts `path` with `arguments`, stdin and stdout on a fresh socket, stderr inherited.
    /// No signal blocked: posix_spawn would copy the calling thread's mask, and Dispatch worker
    /// threads block nearly every signal, so the helper would ignore Ctrl-C and SIGTERM. SIGPIPE
    /// at its default, even if we ignore it: a helper whose reader is gone should die.
    /// The error is the system's reason (e.g. "No such file or directory").
    static func spawn(path: String, arguments: [String]) -> Result<HelperProcess, SpawnError> {
        var ends: [Int32] = [-1, -1]
        #if os(Linux)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { return .failure(SpawnError(reason: errnoText(errno))) }
        let ours = ends[0]
        var theirs = ends[1]
        #if !os(Linux)
        DescriptorIO.setCloseOnExec(ours)
        DescriptorIO.setCloseOnExec(theirs)
        #endif
        if theirs < 3 {
            // Our stdin or stdout was closed; dup2 onto the same number would keep close-on-exec.
            let moved = fcntl(theirs, F_DUPFD_CLOEXEC, 3)
            closeDescriptor(theirs)
            theirs = moved
        }
        defer { closeDescriptor(theirs) }
        DescriptorIO.setNonBlocking(ours)
        DescriptorIO.suppressSIGPIPE(ours)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copies at 0 and 1.
        posix_spawn_file_actions_adddup2(&actions, theirs, 0)
        posix_spawn_file_actions_adddup2(&actions, theirs, 1)
        _ = addCloseFrom?(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard code == 0 else {
            closeDescriptor(ours)
            return .failure(SpawnError(reason: errnoText(code)))
        }
        return .success(HelperProcess(pid: pid, fd: ours))
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time because
    /// Swift's Glibc module hides it (it needs _GNU_SOURCE). With it the helper inherits only
    /// stdin, stdout and stderr, even descriptors another thread opened without close-on-exec
    /// (a long-lived helper holding a dup of someone's socket would keep that connection open).
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let process = dlopen(nil, RTLD_NOW),
              let symbol = dlsym(process, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()

    struct SpawnError: Error {
        var reason: String
    }

    /// Ends the helper and reaps it. SIGKILL: an idle helper holds nothing worth saving, and a
    /// hung one must not hold us up. Returns how it ended, for messages ("exit status 1").
    @discardableResult
    func terminate() -> String {
        closeDescriptor(fd)
        var status: Int32 = 0
        var reaped = waitpid(pid, &status, WNOHANG)
        if reaped == 0 {
            kill(pid, SIGKILL)
            repeat { reaped = waitpid(pid, &status, 0) } while reaped < 0 && errno == EINTR
        }
        guard reaped == pid else { return "unknown status" }
        let signal = status & 0x7F
        return signal == 0 ? "exit status \((status >> 8) & 0xFF)" : "signal \(signal)"
    }

    /// Where the helper is: `TODO_REMOTE_HELPER` if set, else next to the running executable
    /// (as installed with `todo`), else the first match on `PATH`.
    static func locate(
        environment: [String: String], runningExecutable: String? = runningExecutable()
    ) -> Result<String, HelperLaunchFailure> {
        if let path = environment["TODO_REMOTE_HELPER"], !path.isEmpty {
            return .success(path)
        }
        var candidates: [String] = []
        if let executable = runningExecutable, let slash = executable.lastIndex(of: "/") {
            candidates.append(String(executable[...slash]) + RemoteHelperProtocol.helperName)
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            candidates.append("\(directory)/\(RemoteHelperProtocol.helperName)")
        }
        if let found = candidates.first(where: { access($0, X_OK) == 0 }) {
            return .success(found)
        }
        return .failure(.notFound)
    }

    static func runningExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
