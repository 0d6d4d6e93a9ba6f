#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoModel

/// The server's users: `users.json` in the data directory, mode 0600, one entry per user with the
/// digest of their token (`UserToken`), never the token.
///
/// ```json
/// {"format": "todo-server-users", "formatVersion": 1,
///  "users": [{"name": "alice", "tokenIssuedAt": "2024-05-01T09:00:00.000Z", "tokenSHA256": "<64 hex digits>"}]}
/// ```
///
/// Written whole, crash-safely: a temporary file created 0600 before any byte is in it, fsynced,
/// renamed over the file, then the folder fsynced. A reader sees the old users or the new ones.
public struct UsersFile: Equatable, Sendable {
    public static let name = "users.json"
    static let format = "todo-server-users"

    public struct User: Equatable, Sendable {
        public var name: String
        public var tokenDigest: [UInt8]
        public var tokenIssuedAt: String
    }

    public var users: [User] = []

    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public static func path(in directory: String) -> String { directory.appendingPath(name) }

    /// The user whose token `token` is; nil for none. Compares the token's digest with every
    /// user's, each in constant time and without stopping at a match, so how long it takes says
    /// nothing about which digest (if any) was close. `compare` is a seam for tests.
    func user(withToken token: String,
              compare: ([UInt8], [UInt8]) -> Bool = UserToken.sameDigest) -> String? {
        let digest = UserToken.digest(token)
        var found: String?
        for user in users where compare(digest, user.tokenDigest) && found == nil { found = user.name }
        return found
    }

    func index(of name: String) -> Int? {
        users.firstIndex { $0.name.lowercased() == name.lowercased() }
    }

    // MARK: Names

    /// Nil when `name` can be a user's name, else what is wrong. Names end up in every row of an
    /// owner table (`userId`) and in messages, so they are short and plain.
    public static func nameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 64 else { return "a user name has 1 to 64 characters" }
        func allowed(_ c: UInt8) -> Bool {
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 0x2E || c == 0x5F || c == 0x2D || c == 0x40
        }
        guard bytes.allSatisfy(allowed), bytes[0] != 0x2E, bytes[0] != 0x2D else {
            return "'\(name)' is not a valid user name: use letters, digits, '.', '_', '-' and '@', not starting with '.' or '-'"
        }
        return nil
    }

    // MARK: Reading

    /// The users in `directory`; no file means no users.
    public static func read(directory: String) throws(Problem) -> UsersFile {
        let path = path(in: directory)
        let bytes: [UInt8]?
        do { bytes = try LocalFileSystem().readFile(path) } catch {
            throw Problem(message: "cannot read the users file '\(path)': \(error.reason)")
        }
        guard let bytes else { return UsersFile() }
        do { return try decode(bytes) } catch {
            throw Problem(message: "the users file '\(path)' is damaged: \(error.message); restore it from a backup, "
                + "or remove it and add the users again (their tokens change)")
        }
    }

    static func decode(_ bytes: [UInt8]) throws(Problem) -> UsersFile {
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch { throw Problem(message: "not valid JSON (\(error))") }
        guard json["format"]?.stringValue == format else { throw Problem(message: "its \"format\" is not \"\(format)\"") }
        guard json["formatVersion"] == .number(1) else { throw Problem(message: "its \"formatVersion\" is not 1") }
        guard let entries = json["users"]?.arrayValue else { throw Problem(message: "it has no \"users\" array") }
        var file = UsersFile()
        for (n, entry) in entries.enumerated() {
            guard let name = entry["name"]?.stringValue, nameProblem(name) == nil,
                  let hex = entry["tokenSHA256"]?.stringValue, let digest = UserToken.bytes(hex: hex), digest.count == 32,
                  let issued = entry["tokenIssuedAt"]?.stringValue
            else { throw Problem(message: "user \(n + 1) lacks a valid \"name\", \"tokenSHA256\" or \"tokenIssuedAt\"") }
            guard file.index(of: name) == nil else { throw Problem(message: "the user '\(name)' is listed twice") }
            file.users.append(User(name: name, tokenDigest: digest, tokenIssuedAt: issued))
        }
        return file
    }

    // MARK: Writing

    var json: JSONValue {
        .object(["format": .string(Self.format), "formatVersion": .number(1),
                 "users": .array(users.map { user in
                     .object(["name": .string(user.name), "tokenSHA256": .string(UserToken.hex(user.tokenDigest)),
                              "tokenIssuedAt": .string(user.tokenIssuedAt)])
                 })])
    }

    /// Replaces the users file in `directory` with these users; durable when it returns.
    public func write(directory: String) throws(FileSystemError) {
        let path = Self.path(in: directory)
        let temp = AtomicFile.tempPath(for: path)
        do {
            try PrivateFile.create(temp)
            let fs = LocalFileSystem()
            try fs.writeFile(temp, json.canonicalBytes(), sync: true)
            try fs.rename(temp, to: path)
            try fs.syncDirectory(directory)
        } catch {
            try? LocalFileSystem().removeFile(temp)
            throw error
        }
    }
}
