#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics
import TodoModel

/// A secret the replica sends to its server, in a file of its own under `.todo`: the app key
/// (`app-key`) and a user's token (`auth-token`). Each holds the secret alone, then a newline, is
/// readable by its owner only (mode 0600), and is listed in `.todo/.gitignore` (issue 17).
///
/// Why files of their own: `config.json` is readable by everyone (0644), is printed by `init
/// --json`, and the README tells people to commit the `.todo` folder. A secret must be none of these.
///
/// Never through the store's journal: the journal is a plain 0644 file, and a secret in it would be
/// in the open until the commit ends. So the file is replaced on its own, atomically: the temporary
/// file is created 0600 before any byte is written to it, then written, fsynced and renamed over the
/// file, and the folder is fsynced. Callers write the secret before the config that depends on it.
public struct SecretFile: Sendable {
    public static let gitignore = ".gitignore"
    public static let appKey = SecretFile(name: "app-key", what: "app key", option: "--app-key-file FILE")
    public static let authToken = SecretFile(name: "auth-token", what: "token", option: "--token-file FILE")
    /// Every secret file: `.gitignore` lists them all.
    public static let all = [appKey, authToken]

    public let name: String
    /// "app key", for messages.
    public let what: String
    /// The `todo remote set` option that sets it, for messages.
    public let option: String

    /// The secret as stored, and the file's permission bits.
    public struct Stored: Equatable, Sendable {
        public var key: String
        public var mode: UInt32

        /// Bits beyond the owner's: group or others may read (or write) the secret.
        public var isOpenToOthers: Bool { mode & 0o077 != 0 }
    }

    /// The stored secret; nil when there is no file. An empty file (or one with only a newline)
    /// is a corrupt store: a secret cannot be empty.
    public func read(_ store: Store) throws(StoreError) -> Stored? {
        let path = store.layout.absolute(name)
        let bytes: [UInt8]
        do {
            guard let read = try store.fs.readFile(path) else { return nil }
            bytes = read
        } catch {
            throw .io(error)
        }
        var line = bytes[...]  // by bytes: as Characters, "\r\n" is one
        while let last = line.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { line.removeLast() }
        let text = String(decoding: line, as: UTF8.self)
        guard !text.isEmpty else {
            throw .corrupt(path: store.displayPath(name),
                           reason: "the \(what) file is empty; set the \(what) with 'todo remote set \(option)', "
                               + "or remove the file to send none")
        }
        var st = stat()
        let mode = stat(path, &st) == 0 ? UInt32(st.st_mode) & 0o777 : 0o600
        return Stored(key: text, mode: mode)
    }

    /// Replaces the file with `secret` (mode 0600), or removes it when `secret` is nil; makes sure
    /// `.gitignore` keeps it out of git. Durable when it returns.
    public func write(_ secret: String?, in store: Store) throws(StoreError) {
        let path = store.layout.absolute(name)
        let temp = AtomicFile.tempPath(for: path)
        do {
            if let secret {
                try PrivateFile.create(temp)
                try AtomicFile.write(Array((secret + "\n").utf8), to: path, in: store.fs)
                try ensureIgnored(store)
            } else {
                try store.fs.removeFile(path)
            }
            try store.fs.syncDirectory(store.layout.root)
        } catch {
            try? store.fs.removeFile(temp)  // a leftover would be reported by 'todo doctor'
            throw .io(error)
        }
    }

    /// Writes `.todo/.gitignore` naming every secret file, or adds this one's name to a
    /// `.gitignore` that lacks it (one written by an older todo, or the user's own: a line that
    /// keeps a secret out of git is never unwelcome there).
    func ensureIgnored(_ store: Store) throws(FileSystemError) {
        let path = store.layout.absolute(Self.gitignore)
        guard let existing = try store.fs.readFile(path) else {
            let text = "# Secrets: never commit them (todo writes this file).\n"
                + Self.all.map { $0.name + "\n" }.joined()
            try AtomicFile.write(Array(text.utf8), to: path, in: store.fs)
            return
        }
        let lines = String(decoding: existing, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard !lines.contains(where: { $0.trimmingCharacters(in: " \r\t") == name }) else { return }
        var bytes = existing
        if let last = bytes.last, last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        bytes += Array("\(name)\n".utf8)
        try AtomicFile.write(bytes, to: path, in: store.fs)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var text = self
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return text
    }
}
