#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// The user's editor, for `todo resolve --edit` (sync.md §8.3.5): `$EDITOR`, else `$VISUAL`, else
/// `vi`. It runs through `/bin/sh -c '<editor> "$@"'` as git runs it, so a setting with arguments
/// (`code --wait`) works, with the command's environment and the terminal as stdin/stdout/stderr.
enum Editor {
    static func command(_ environment: [String: String]) -> String {
        for key in ["EDITOR", "VISUAL"] {
            if let value = environment[key], value.contains(where: { !$0.isWhitespace }) { return value }
        }
        return "vi"
    }

    /// A new empty file for the proposal, under `$TMPDIR` (default /tmp), named so people
    /// recognise it: `todo-resolve-<short id>-XXXXXX.jsonc` (JSON with comments, so editors
    /// highlight it without flagging the comment lines).
    static func temporaryFile(_ environment: [String: String], label: String) throws(CLIError) -> String {
        let dir = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let safe = String(label.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) }.prefix(8).map(Character.init))
        var template = Array("\(dir)/todo-resolve-\(safe)-XXXXXX.jsonc".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 6) }
        guard fd >= 0 else {
            throw CLIError(.failure, "cannot create a temporary file in \(dir): \(errnoText(errno))",
                           hint: "set TMPDIR to a writable folder")
        }
        close(fd)
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Runs the editor on `file` and waits for it. Returns its exit status, or nil when it could
    /// not be started or was killed by a signal.
    static func run(_ editor: String, file: String, environment: [String: String]) -> Int32? {
        let arguments = ["/bin/sh", "-c", editor + " \"$@\"", editor, file]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { a in
            envp.withUnsafeBufferPointer { e in
                posix_spawn(&pid, "/bin/sh", nil, nil, a.baseAddress!, e.baseAddress!)
            }
        }
        guard spawned == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return nil }
        }
        guard status & 0x7F == 0 else { return nil }  // WIFEXITED
        return (status >> 8) & 0xFF  // WEXITSTATUS
    }
}
