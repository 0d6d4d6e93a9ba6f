#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoTestSupport
@testable import TodoServer

/// Issue 17 item 7: tokens are random, stored only as digests in a private file written
/// crash-safely, compared in constant time, and a running server sees the file change.
@Suite struct UserTokenStoreTests {
    static func mode(_ path: String) -> UInt32? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt32(st.st_mode) & 0o777 : nil
    }

    static func text(_ path: String) -> String {
        String(decoding: ((try? LocalFileSystem().readFile(path)) ?? nil) ?? [], as: UTF8.self)
    }

    @Test func tokensAreLongAndRandom() throws {
        let a = try UserToken.make(), b = try UserToken.make()
        #expect(a.count == 64 && UserToken.bytes(hex: a)?.count == 32)
        #expect(a != b)
    }

    @Test func theFileHoldsTheDigestNeverTheTokenAndOnlyItsOwnerMayReadIt() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let add = try UserCommand.perform("add", name: "alice", directory: dir.path)
        let token = try #require(add.stdout.first)
        let path = dir.sub("users.json")
        #expect(Self.mode(path) == 0o600)
        let stored = Self.text(path)
        #expect(!stored.contains(token), "the token itself is never stored")
        #expect(stored.contains(UserToken.hex(UserToken.digest(token))), "its SHA-256 digest is")
        #expect(!LocalFileSystem().fileExists(dir.sub(".users.json.tmp")), "no temporary file is left")
        // Rewritten by the next change, still 0600, even when someone widened it.
        chmod(path, 0o644)
        _ = try UserCommand.perform("add", name: "bob", directory: dir.path)
        #expect(Self.mode(path) == 0o600)
        let users = try UsersFile.read(directory: dir.path)
        #expect(users.users.map(\.name) == ["alice", "bob"])
        #expect(users.user(withToken: token) == "alice")
        #expect(users.user(withToken: String(token.reversed())) == nil)
    }

    @Test func everyDigestIsComparedWithTheConstantTimeCompareAndNoneIsSkipped() throws {
        var file = UsersFile()
        for name in ["a", "b", "c", "d"] {
            file.users.append(.init(name: name, tokenDigest: UserToken.digest("token-\(name)"), tokenIssuedAt: "t"))
        }
        for (token, expected) in [("token-a", "a"), ("token-d", "d"), ("nobody", nil)] as [(String, String?)] {
            var compared: [[UInt8]] = []
            let found = file.user(withToken: token) { presented, stored in
                compared.append(stored)
                return UserToken.sameDigest(presented, stored)
            }
            #expect(found == expected)
            #expect(compared == file.users.map(\.tokenDigest), "a match does not stop the scan: \(token)")
        }
        // The default comparison is the constant-time one: same answers.
        #expect(file.user(withToken: "token-c") == "c")
    }

    @Test func sameDigestComparesEveryByte() {
        let a = UserToken.digest("x")
        var first = a, last = a
        first[0] ^= 1
        last[31] ^= 0x80
        #expect(UserToken.sameDigest(a, a))
        #expect(!UserToken.sameDigest(a, first) && !UserToken.sameDigest(a, last))
        #expect(!UserToken.sameDigest(a, Array(a.prefix(31))))
    }

    @Test func commandsAndTheirMessages() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        func problem(_ action: String, _ name: String?) -> String? {
            do { _ = try UserCommand.perform(action, name: name, directory: dir.path); return nil } catch { return error.message }
        }
        #expect(try UserCommand.perform("list", name: nil, directory: dir.path).stdout == ["no users (add one with 'todo-server user add NAME')"])
        let first = try UserCommand.perform("add", name: "alice", directory: dir.path)
        #expect(first.stderr == ["added the user 'alice'; the token printed on stdout is shown this once (only its digest is kept): "
            + "give it to them for 'todo remote set --token-file FILE'"])
        #expect(problem("add", "Alice") == "the user 'alice' exists; 'todo-server user token alice' issues a new token")
        #expect(problem("add", "a b") == "'a b' is not a valid user name: use letters, digits, '.', '_', '-' and '@', not starting with '.' or '-'")
        #expect(problem("rm", "bob") == "there is no user 'bob' (see 'todo-server user list')")
        let again = try UserCommand.perform("token", name: "alice", directory: dir.path)
        let users = try UsersFile.read(directory: dir.path)
        #expect(users.user(withToken: again.stdout[0]) == "alice")
        #expect(users.user(withToken: first.stdout[0]) == nil, "a new token replaces the old one")
        #expect(try UserCommand.perform("list", name: nil, directory: dir.path).stdout.first?.hasPrefix("alice  token issued 20") == true)
        #expect(try UserCommand.perform("rm", name: "alice", directory: dir.path).stdout == ["removed the user 'alice'; their token no longer works"])
        #expect(try UsersFile.read(directory: dir.path).users.isEmpty)
    }

    @Test func theServersViewFollowsTheFileWithoutARestart() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let directory = try UserDirectory(directory: dir.path)
        #expect(directory.lookup("anything") == .unknown, "no file: no users")
        let alice = try #require(try UserCommand.perform("add", name: "alice", directory: dir.path).stdout.first)
        #expect(directory.lookup(alice) == .user("alice"))
        _ = try UserCommand.perform("rm", name: "alice", directory: dir.path)
        #expect(directory.lookup(alice) == .unknown, "a removed user's token stops working at once")

        try LocalFileSystem().writeFile(dir.sub("users.json"), Array("{\"format\": 1}".utf8), sync: false)
        let damaged = "the users file '\(dir.sub("users.json"))' is damaged: its \"format\" is not \"todo-server-users\"; "
            + "restore it from a backup, or remove it and add the users again (their tokens change)"
        #expect(directory.lookup(alice) == .unavailable(damaged), "never served from users that may be gone")
        #expect(throws: UsersFile.Problem(message: damaged)) { try UserDirectory(directory: dir.path) }
    }
}
