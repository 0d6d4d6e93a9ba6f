#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// Runs a shell command with a pseudo-terminal of our own as its controlling terminal and its
/// stdin, stdout and stderr, as a person at a terminal would run it, and returns everything it
/// wrote there (issue 19 item 8). Why our own and not `script` or tmux: the test then needs
/// nothing installed, and sees the bytes exactly as the terminal got them (`\r`, escapes).
public enum PseudoTerminal {
    public struct Result: Sendable, CustomStringConvertible {
        public var code: Int32
        /// What the terminal received: stdout and stderr interleaved, with the line discipline's
        /// `\r\n` for each newline.
        public var output: String
        public var description: String { "exit \(code)\n\(output)" }
    }

    /// `sh -c command` in `directory`, with `environment` added to this process's (TERM=xterm).
    public static func run(_ command: String, in directory: String, environment: [String: String] = [:]) -> Result {
        let master = LibC.posixOpenpt(O_RDWR | O_NOCTTY)
        precondition(master >= 0, "posix_openpt: \(errno)")
        defer { close(master) }
        precondition(LibC.grantpt(master) == 0 && LibC.unlockpt(master) == 0, "grantpt/unlockpt: \(errno)")
        var name = [CChar](repeating: 0, count: 128)
        precondition(LibC.ptsnameR(master, &name, name.count) == 0, "ptsname_r: \(errno)")
        let slavePath = name.withUnsafeBufferPointer { String(decoding: $0.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        // Held open here until the child exits, so reading the master never fails before the
        // child has opened its side.
        let slave = open(slavePath, O_RDWR | O_NOCTTY)
        precondition(slave >= 0, "open \(slavePath): \(errno)")
        defer { close(slave) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // After setsid, the first terminal the session leader opens becomes its controlling one.
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        posix_spawn_file_actions_addclose(&actions, master)
        posix_spawn_file_actions_addclose(&actions, slave)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (glibc), not visible to Swift
        posix_spawnattr_setflags(&attributes, Int16(setsid | Int32(POSIX_SPAWN_SETSIGMASK)))

        var env = ProcessEnvironment.current()
        env["TERM"] = "xterm"
        env.merge(environment) { $1 }
        let arguments: [String] = ["/bin/sh", "-c", "cd '\(directory)' && \(command)"]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { a in
            envp.withUnsafeBufferPointer { e in posix_spawn(&pid, "/bin/sh", &actions, &attributes, a.baseAddress!, e.baseAddress!) }
        }
        precondition(spawned == 0, "posix_spawn: \(spawned)")

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var status: Int32 = 0
        func drain() {
            while true {
                var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&fds, 1, 0) > 0, fds.revents & Int16(POLLIN) != 0 else { return }
                let n = read(master, &buffer, buffer.count)
                guard n > 0 else { return }
                output += buffer[0..<n]
            }
        }
        while true {
            var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&fds, 1, 50) > 0 { drain() }
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { break }
        }
        drain()
        let code: Int32 = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(code: code, output: String(decoding: output, as: UTF8.self))
    }
}

/// The pseudo-terminal calls of the C library, which the Glibc module does not show to Swift
/// (they are X/Open extensions), looked up by name.
private enum LibC {
    typealias IntOfInt = @convention(c) (Int32) -> Int32
    typealias PtsnameR = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    static func symbol<T>(_ name: String, as type: T.Type) -> T {
        guard let pointer = dlsym(dlopen(nil, RTLD_NOW), name) else { preconditionFailure("no \(name) in the C library") }
        return unsafeBitCast(pointer, to: type)
    }

    static let posixOpenpt = symbol("posix_openpt", as: IntOfInt.self)
    static let grantpt = symbol("grantpt", as: IntOfInt.self)
    static let unlockpt = symbol("unlockpt", as: IntOfInt.self)
    static let ptsnameR = symbol("ptsname_r", as: PtsnameR.self)
}
