#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 17 item 5: the replica's app key lives in `.todo/app-key` (mode 0600, ignored by git), never
/// in `config.json` and never in any output; a key file others can read is warned about; a replica
/// whose key an older todo left in `config.json` keeps working and `todo remote set` moves the key.
@Suite struct AppKeyTests {
    static let key = "s3cret-K3Y"

    static func mode(_ path: String) -> UInt32? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt32(st.st_mode) & 0o777 : nil
    }

    static func text(_ path: String) -> String? {
        ((try? LocalFileSystem().readFile(path)) ?? nil).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every file under `.todo` and every output of the read-only commands, none holding the key.
    static func expectKeyNowhereVisible(_ dir: TempDirectory, _ cli: CLIHarness, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(text(dir.sub(".todo/config.json"))?.contains(key) == false, "config.json", sourceLocation: sourceLocation)
        #expect(text(dir.sub(".todo/config.json"))?.contains("appKey") == false, "config.json", sourceLocation: sourceLocation)
        for args in [["remote"], ["remote", "--json"], ["status"], ["status", "--json"], ["doctor"], ["log"]] {
            let r = cli.run(args)
            #expect(!r.out.contains(key) && !r.err.contains(key), "todo \(args.joined(separator: " ")): \(r)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func initWithAKeyKeepsItInAPrivateFileOnly() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        let created = cli.run("init", "--remote", "http://127.0.0.1:9", "--app-key", Self.key, "--json")
        #expect(created.code == 0, "\(created)")
        #expect(!created.out.contains(Self.key), "init --json prints the config, not the key: \(created.out)")
        #expect(Self.text(dir.sub(".todo/app-key")) == Self.key + "\n")
        #expect(Self.mode(dir.sub(".todo/app-key")) == 0o600)
        #expect(Self.text(dir.sub(".todo/.gitignore"))?.contains("\napp-key\n") == true, "git leaves the key file out")
        Self.expectKeyNowhereVisible(dir, cli)
        let remote = cli.run("remote")
        #expect(remote.out == "remote    http://127.0.0.1:9\nprotocol  mobile-apps\napp key   set (.todo/app-key)\ntoken     none\npage size 50\n")
        #expect(remote.err == "")
        #expect(cli.run("remote", "--json").out.contains(#""appKey": "file""#))
        let doctor = cli.run("doctor")
        #expect(doctor.code == 0 && !doctor.out.contains("app-key") && !doctor.out.contains(".gitignore"), "\(doctor)")
    }

    @Test func initAndRemoteSetReadTheKeyFromAFile() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        try fs.writeFile(dir.sub("key.txt"), Array((Self.key + "\n").utf8), sync: false)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init", "--app-key-file", "key.txt").code == 0)
        #expect(Self.text(dir.sub(".todo/app-key")) == Self.key + "\n")
        #expect(Self.mode(dir.sub(".todo/app-key")) == 0o600)

        try fs.writeFile(dir.sub("other.txt"), Array("other-key\r\nsecond line ignored\n".utf8), sync: false)
        #expect(cli.run("remote", "set", "--app-key-file", dir.sub("other.txt")).code == 0)
        #expect(Self.text(dir.sub(".todo/app-key")) == "other-key\n")
        #expect(Self.mode(dir.sub(".todo/app-key")) == 0o600)

        let both = cli.run("remote", "set", "--app-key", "a", "--app-key-file", "key.txt")
        #expect(both.code == 2 && both.err.hasPrefix("error: give the app key once: --app-key or --app-key-file, not both\n"), "\(both)")
        try fs.writeFile(dir.sub("empty.txt"), Array("\n".utf8), sync: false)
        let empty = cli.run("remote", "set", "--app-key-file", "empty.txt")
        #expect(empty.code == 1 && empty.err == "error: the app key file 'empty.txt' is empty: its first line must be the key\n", "\(empty)")
        let missing = cli.run("remote", "set", "--app-key-file", "nope.txt")
        #expect(missing.code == 1 && missing.err == "error: the app key file 'nope.txt' does not exist\n", "\(missing)")
        #expect(Self.text(dir.sub(".todo/app-key")) == "other-key\n", "refused commands change nothing")

        // '' removes the key; TODO_APP_KEY is then what is sent.
        #expect(cli.run("remote", "set", "--app-key", "").code == 0)
        #expect(!fs.fileExists(dir.sub(".todo/app-key")))
        let withEnvironment = CLIHarness(directory: dir.path, environment: ["TODO_APP_KEY": "from-env"])
        #expect(withEnvironment.run("remote", "--json").out.contains(#""appKey": "environment""#))
    }

    @Test func aKeyFileOthersCanReadIsWarnedAbout() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init", "--remote", "http://127.0.0.1:9", "--app-key", Self.key).code == 0)
        chmod(dir.sub(".todo/app-key"), 0o644)
        let remote = cli.run("remote")
        #expect(remote.code == 0)
        #expect(remote.err == "warning: .todo/app-key can be read by other users (mode 0644); run: chmod 600 '\(dir.path)/.todo/app-key'\n",
                "\(remote)")
        let doctor = cli.run("doctor")
        #expect(doctor.code == 0)
        #expect(doctor.out.contains(".todo/app-key: other users can read the app key (mode 644); run: chmod 600 '\(dir.path)/.todo/app-key'"),
                "\(doctor)")
        chmod(dir.sub(".todo/app-key"), 0o600)
        #expect(cli.run("remote").err == "")
    }

    @Test func aKeyInConfigJSONKeepsWorkingAndRemoteSetMovesIt() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let configPath = dir.sub(".todo/config.json")
        let old = try #require(Self.text(configPath))
        #expect(old.contains(#""appKey": null"#))
        try LocalFileSystem().writeFile(configPath, Array(old.replacingOccurrences(#""appKey": null"#, with: #""appKey": "\#(Self.key)""#).utf8),
                                        sync: false)
        let cli = CLIHarness(directory: dir.path)
        let warning = "warning: the app key is stored in .todo/config.json, which other users can read and a commit of the "
            + "folder would publish; run 'todo remote set' to move it to .todo/app-key (mode 0600)\n"
        let shown = cli.run("remote")
        #expect(shown.err == warning, "\(shown)")
        #expect(shown.out.contains("app key   set in .todo/config.json (run 'todo remote set' to move it to .todo/app-key)\n"))
        #expect(!shown.out.contains(Self.key))
        #expect(cli.run("doctor").code == 0, "an older replica is not damaged")

        let moved = cli.run("remote", "set")
        #expect(moved.code == 0 && moved.err == "", "\(moved)")
        #expect(moved.out.contains("app key   set (.todo/app-key)\n"))
        #expect(Self.text(dir.sub(".todo/app-key")) == Self.key + "\n")
        #expect(Self.mode(dir.sub(".todo/app-key")) == 0o600)
        Self.expectKeyNowhereVisible(dir, cli)
        #expect(cli.run("remote").err == "")
        // With the key moved, a bare 'remote set' has nothing to do again.
        #expect(cli.run("remote", "set").code == 2)
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
