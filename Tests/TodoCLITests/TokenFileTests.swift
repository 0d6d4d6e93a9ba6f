#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 17 item 7, replica side: a user's token lives in `.todo/auth-token` (mode 0600, ignored by
/// git), is read only from a file, is never printed, and a token file others can read is warned about.
@Suite struct TokenFileTests {
    static let token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

    static func mode(_ path: String) -> UInt32? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt32(st.st_mode) & 0o777 : nil
    }

    static func text(_ path: String) -> String? {
        ((try? LocalFileSystem().readFile(path)) ?? nil).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func remoteSetKeepsTheTokenInAPrivateFileAndNeverShowsIt() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        try fs.writeFile(dir.sub("alice.token"), Array((Self.token + "\r\nignored\n").utf8), sync: false)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init", "--remote", "http://127.0.0.1:9").code == 0)
        let set = cli.run("remote", "set", "--token-file", "alice.token")
        #expect(set.code == 0 && set.err == "", "\(set)")
        #expect(Self.text(dir.sub(".todo/auth-token")) == Self.token + "\n")
        #expect(Self.mode(dir.sub(".todo/auth-token")) == 0o600)
        #expect(Self.text(dir.sub(".todo/.gitignore"))?.contains("\nauth-token\n") == true, "git leaves the token out")
        let remote = cli.run("remote")
        #expect(remote.out == "remote    http://127.0.0.1:9\nprotocol  mobile-apps\napp key   none\ntoken     set (.todo/auth-token)\npage size 50\n")
        #expect(cli.run("remote", "--json").out.contains(#""token": "file""#))
        for args in [["remote"], ["remote", "--json"], ["status"], ["status", "--json"], ["doctor"], ["log"]] {
            let r = cli.run(args)
            #expect(!r.out.contains(Self.token) && !r.err.contains(Self.token), "todo \(args.joined(separator: " ")): \(r)")
        }
        #expect(Self.text(dir.sub(".todo/config.json"))?.contains(Self.token) == false)
        #expect(cli.run("doctor").code == 0)

        // '' removes it; TODO_AUTH_TOKEN is then what is sent.
        #expect(cli.run("remote", "set", "--token-file", "").code == 0)
        #expect(!fs.fileExists(dir.sub(".todo/auth-token")))
        let withEnvironment = CLIHarness(directory: dir.path, environment: ["TODO_AUTH_TOKEN": "from-env"])
        #expect(withEnvironment.run("remote").out.contains("token     from TODO_AUTH_TOKEN\n"))
    }

    @Test func initAndCloneTakeATokenFileAndBadFilesAreRefused() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        try fs.writeFile(dir.sub("t"), Array((Self.token + "\n").utf8), sync: false)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init", "r", "--token-file", "t").code == 0)
        #expect(Self.text(dir.sub("r/.todo/auth-token")) == Self.token + "\n")
        #expect(Self.mode(dir.sub("r/.todo/auth-token")) == 0o600)

        try fs.writeFile(dir.sub("empty"), Array("\n".utf8), sync: false)
        let empty = cli.run("init", "e", "--token-file", "empty")
        #expect(empty.code == 1 && empty.err == "error: the token file 'empty' is empty: its first line must be the token "
            + "(todo-server user add NAME prints one)\n", "\(empty)")
        let missing = cli.run("remote", "set", "--token-file", "nope", in: "r")
        #expect(missing.code == 1 && missing.err == "error: the token file 'nope' does not exist\n", "\(missing)")
        #expect(Self.text(dir.sub("r/.todo/auth-token")) == Self.token + "\n", "a refused command changes nothing")
        #expect(cli.run("remote", "set", "--token", Self.token, in: "r").code == 2, "no option takes the token itself")
    }

    @Test func aTokenFileOthersCanReadIsWarnedAbout() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        try LocalFileSystem().writeFile(dir.sub("t"), Array((Self.token + "\n").utf8), sync: false)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init", "--remote", "http://127.0.0.1:9", "--token-file", "t").code == 0)
        chmod(dir.sub(".todo/auth-token"), 0o640)
        let remote = cli.run("remote")
        #expect(remote.err == "warning: .todo/auth-token can be read by other users (mode 0640); run: chmod 600 '\(dir.path)/.todo/auth-token'\n",
                "\(remote)")
        let doctor = cli.run("doctor")
        #expect(doctor.out.contains(".todo/auth-token: other users can read the token (mode 640); run: chmod 600 '\(dir.path)/.todo/auth-token'"),
                "\(doctor)")
    }

    @Test func aGitignoreWithoutTheTokenGetsItsLine() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        try fs.writeFile(dir.sub("t"), Array((Self.token + "\n").utf8), sync: false)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init", "--app-key", "k").code == 0)
        // As an older todo wrote it: the app key only.
        try fs.writeFile(dir.sub(".todo/.gitignore"), Array("# mine\napp-key".utf8), sync: false)
        #expect(cli.run("remote", "set", "--token-file", "t").code == 0)
        #expect(Self.text(dir.sub(".todo/.gitignore")) == "# mine\napp-key\nauth-token\n")
        #expect(cli.run("remote", "set", "--token-file", "t").code == 0)
        #expect(Self.text(dir.sub(".todo/.gitignore")) == "# mine\napp-key\nauth-token\n", "added once")
    }
}
