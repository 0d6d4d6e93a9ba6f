import Testing
import TodoBasics
import TodoTestSupport

/// Issue 16 item 3: library modules return values; only the command line (`TodoCLI`, the
/// executables) writes to the console, exits, reads the process environment, or words advice for
/// people. A scan of the libraries' sources, so a new `print` or `exit` deep inside fails here.
@Suite struct LibrariesNeverSpeakTests {
    static let libraries = ["TodoBasics", "TodoModel", "TodoStore", "TodoSync", "TableProtocol"]

    /// What a library must not call: the console, the process's end, the environment.
    static let effects = ["print(", "exit(", "FileHandle.standard", "ProcessInfo", "ProcessEnvironment.current()", "getenv(",
                          "_exit(", "fputs(", "write(1,", "write(2,", "STDOUT_FILENO", "STDERR_FILENO", "environ"]

    /// Files allowed one of `effects`, each with its reason.
    static let allowed: [String: (effect: String, reason: String)] = [
        "TodoBasics/POSIX/ProcessEnvironment.swift": ("environ", "defines the one read of the environment, which only executables call"),
        "TodoSync/Transport/HelperProcess.swift": ("environ", "hands the environment on to the helper it starts (posix_spawn), reading none of it"),
    ]

    /// Advice to people (a todo command to run) in library sources; the files that still hold
    /// some are named, each with why.
    static let advice = ["'todo "]
    static let adviceLeft: [String: String] = [
        "TodoStore/SecretFile.swift": "an empty secret file is refused as a damaged record, whose reason doctor shows as it is",
    ]

    static var sources: String { (#filePath as String).parentPath.parentPath.parentPath.appendingPath("Sources") }

    /// Every Swift file under `folder`, as "Module/sub/File.swift", and its code lines (comments left out).
    static func files(_ folder: String, relative: String) -> [(path: String, lines: [Substring])] {
        let fs = LocalFileSystem()
        var found: [(String, [Substring])] = []
        for name in ((try? fs.listDirectory(folder)) ?? nil)?.sorted() ?? [] {
            let path = folder.appendingPath(name), rel = relative + "/" + name
            if fs.isDirectory(path) {
                found += files(path, relative: rel)
            } else if name.hasSuffix(".swift"), let bytes = (try? fs.readFile(path)) ?? nil {
                let code = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { !$0.drop { $0 == " " }.hasPrefix("//") }
                found.append((rel, code))
            }
        }
        return found
    }

    /// `token` as a name of its own: not the end of a longer identifier (`fingerprint(`, `environment`).
    static func calls(_ line: Substring, _ token: String) -> Bool {
        var rest = line[...]
        while let range = rest.firstRange(of: token) {
            let before = range.lowerBound == line.startIndex ? nil : line[line.index(before: range.lowerBound)]
            let after = range.upperBound == line.endIndex ? nil : line[range.upperBound]
            let startsName = before.map { !($0.isLetter || $0.isNumber || $0 == "_") } ?? true
            let endsName = token.last!.isLetter ? after.map { !($0.isLetter || $0.isNumber || $0 == "_") } ?? true : true
            if startsName && endsName { return true }
            rest = line[range.upperBound...]
        }
        return false
    }

    @Test func theSourcesAreFound() {
        let all = Self.libraries.flatMap { Self.files(Self.sources.appendingPath($0), relative: $0) }
        #expect(all.count > 100, "found \(all.count) files under \(Self.sources)")
        #expect(all.contains { $0.path == "TodoStore/Store.swift" })
    }

    @Test(arguments: libraries) func noLibraryPrintsExitsOrReadsTheEnvironment(_ library: String) {
        for file in Self.files(Self.sources.appendingPath(library), relative: library) {
            for (n, line) in file.lines.enumerated() {
                for effect in Self.effects where Self.calls(line, effect) && Self.allowed[file.path]?.effect != effect {
                    Issue.record("\(file.path):\(n + 1) uses \(effect): \(line.drop { $0 == " " })")
                }
            }
        }
    }

    @Test(arguments: libraries) func noNewAdviceInLibraries(_ library: String) {
        for file in Self.files(Self.sources.appendingPath(library), relative: library) where Self.adviceLeft[file.path] == nil {
            for (n, line) in file.lines.enumerated() where Self.advice.contains(where: { line.contains($0) }) {
                let code = line.drop { $0 == " " }
                Issue.record("\(file.path):\(n + 1) words advice for people (return a value, word it in TodoCLI/Rendering): \(code)")
            }
        }
    }

    @Test func theScanFindsWhatItLooksFor() {
        #expect(Self.calls("        print(\"x\")", "print("))
        #expect(Self.calls("if bad { exit(2) }", "exit("))
        #expect(Self.calls("let e = environ", "environ"))
        #expect(!Self.calls("let f = fingerprint(x)", "print("))
        #expect(!Self.calls("let e = environment[\"X\"]", "environ"))
        #expect(Self.calls("Glibc.exit(1)", "exit("))
        #expect(!Self.calls("_exit(1)", "exit("), "a name of its own: _exit( is its own entry")
    }
}
