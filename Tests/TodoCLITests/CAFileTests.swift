import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 20 item 3, replica side: `--ca-file PATH` is checked before anything changes, kept as an
/// absolute path in config.json, shown by `todo remote`, and removed with ''. The TLS side (the
/// helper trusting the file) is in HelperTLSTests and NginxTLSTests.
@Suite struct CAFileTests {
    static let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

    static func config(_ dir: TempDirectory) -> String {
        ((try? LocalFileSystem().readFile(dir.sub(".todo/config.json"))) ?? nil).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    @Test func remoteSetKeepsTheCAFilesAbsolutePathAndShowsIt() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        try LocalFileSystem().writeFile(dir.sub("ca.pem"), Array(Self.pem.utf8), sync: false)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init", "--remote", "https://127.0.0.1:9").code == 0)
        #expect(!Self.config(dir).contains("caFile"), "a replica without a CA file keeps the config older todos read")
        let set = cli.run("remote", "set", "--ca-file", "ca.pem")
        #expect(set.code == 0 && set.err == "", "\(set)")
        #expect(set.out.hasSuffix("page size 50\nCA file   \(dir.sub("ca.pem"))\n"), "\(set.out)")
        #expect(Self.config(dir).contains(#""caFile":"\#(dir.sub("ca.pem"))""#) || Self.config(dir).contains(#""caFile": "\#(dir.sub("ca.pem"))""#),
                "\(Self.config(dir))")
        #expect(cli.run("remote", "--json").out.contains(dir.sub("ca.pem")))
        #expect(cli.run("doctor").code == 0)
        let removed = cli.run("remote", "set", "--ca-file", "")
        #expect(removed.code == 0 && !removed.out.contains("CA file"), "\(removed)")
        #expect(!Self.config(dir).contains("caFile"))
    }

    @Test func aCAFileThatCannotBeUsedIsRefusedAndNothingChanges() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        try LocalFileSystem().writeFile(dir.sub("key.pem"), Array("-----BEGIN PRIVATE KEY-----\nMIIB\n".utf8), sync: false)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init", "--remote", "https://127.0.0.1:9").code == 0)
        let before = Self.config(dir)
        let missing = cli.run("remote", "set", "https://other:9", "--ca-file", "nope.pem")
        #expect(missing.code == 1 && missing.err == "error: the CA file 'nope.pem' does not exist\n"
            + "hint: give the PEM file of the CA that signed the server's certificate\n", "\(missing)")
        let notPEM = cli.run("remote", "set", "--ca-file", "key.pem")
        #expect(notPEM.code == 1 && notPEM.err == "error: the CA file 'key.pem' holds no PEM certificate (-----BEGIN CERTIFICATE-----)\n"
            + "hint: give the PEM file of the CA that signed the server's certificate\n", "\(notPEM)")
        #expect(Self.config(dir) == before, "a refused command changes nothing")
        let clone = cli.run("clone", "https://127.0.0.1:9", "c", "--ca-file", "nope.pem")
        #expect(clone.code == 1 && clone.err.hasPrefix("error: the CA file 'nope.pem' does not exist\n"), "\(clone)")
        #expect(!LocalFileSystem().fileExists(dir.sub("c/.todo")))
    }

    @Test func aCAFileRemovedAfterwardsStopsThePushBeforeAnyRequest() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        try LocalFileSystem().writeFile(dir.sub("ca.pem"), Array(Self.pem.utf8), sync: false)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init", "--remote", "https://127.0.0.1:9", "--ca-file", "ca.pem").code == 0)
        #expect(cli.run("add", "one").code == 0)
        try LocalFileSystem().removeFile(dir.sub("ca.pem"))
        let push = cli.run("push")
        #expect(push.code == 1 && push.err == "error: the CA file '\(dir.sub("ca.pem"))' does not exist\n"
            + "hint: set a readable one with 'todo remote set --ca-file PATH' ('' for the system's store)\n", "\(push)")
        #expect(cli.run("status", "--short").out.contains("todoitem"), "the change is kept")
    }
}
