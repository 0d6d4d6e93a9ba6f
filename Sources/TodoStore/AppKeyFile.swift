#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics
import TodoModel

/// The replica's app key, in `.todo/app-key`: the key alone, then a newline, readable by its owner
/// only (mode 0600), and listed in `.todo/.gitignore` (issue 17).
///
/// Why a file of its own: `config.json` is readable by everyone (0644), is printed by `init --json`,
/// and the README tells people to commit the `.todo` folder. The key must be none of these. Replicas
/// written before keep their key in `config.json`'s `appKey` and go on working: the key is read from
/// there when there is no `app-key` file (`ReplicaAppKey`), and moves here at the next write of the
/// config (`todo remote set`), which then drops it from `config.json`.
///
/// Never through the store's journal: the journal is a plain 0644 file, and a key in it would be in
/// the open until the commit ends. So the key file is replaced on its own, atomically: the temporary
/// file is created 0600 before any byte is written to it, then written, fsynced and renamed over the
/// key file, and the folder is fsynced. Callers write the key before the config that depends on it.
public enum AppKeyFile {
    public static let name = "app-key"
    public static let gitignore = ".gitignore"

    /// The key as stored, and the file's permission bits.
    public struct Stored: Equatable, Sendable {
        public var key: String
        public var mode: UInt32

        /// Bits beyond the owner's: group or others may read (or write) the key.
        public var isOpenToOthers: Bool { mode & 0o077 != 0 }
    }

    /// The stored key; nil when there is no key file. An empty file (or one with only a newline)
    /// is a corrupt store: a key cannot be empty.
    public static func read(_ store: Store) throws(StoreError) -> Stored? {
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
                           reason: "the app key file is empty; set the key with 'todo remote set --app-key-file FILE', "
                               + "or remove the file to send none")
        }
        var st = stat()
        let mode = stat(path, &st) == 0 ? UInt32(st.st_mode) & 0o777 : 0o600
        return Stored(key: text, mode: mode)
    }

    /// Replaces the key file with `key` (mode 0600), or removes it when `key` is nil; makes sure
    /// `.gitignore` keeps it out of git. Durable when it returns.
    public static func write(_ key: String?, in store: Store) throws(StoreError) {
        let path = store.layout.absolute(name)
        let temp = AtomicFile.tempPath(for: path)
        do {
            if let key {
                try createPrivate(temp)
                try AtomicFile.write(Array((key + "\n").utf8), to: path, in: store.fs)
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

    /// Creates `path` empty with mode 0600, or makes an existing one so: the file system writes
    /// into it without changing its mode.
    static func createPrivate(_ path: String) throws(FileSystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            throw FileSystemError(operation: "create", path: path, code: code, reason: errnoText(code))
        }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else {
            let code = errno
            throw FileSystemError(operation: "chmod", path: path, code: code, reason: errnoText(code))
        }
    }

    /// Writes `.todo/.gitignore` naming the key file, unless the folder already has one (which is
    /// then the user's, and left as it is).
    static func ensureIgnored(_ store: Store) throws(FileSystemError) {
        let path = store.layout.absolute(gitignore)
        guard !store.fs.fileExists(path) else { return }
        let text = "# The app key is a secret: never commit it (todo writes this file).\n\(name)\n"
        try AtomicFile.write(Array(text.utf8), to: path, in: store.fs)
    }
}

/// Which app key a replica sends, and from where: `.todo/app-key`, else the `appKey` an older
/// `todo` left in `config.json`, else `TODO_APP_KEY`.
public struct ReplicaAppKey: Equatable, Sendable {
    public enum Source: String, Sendable {
        case file, config, environment, none
    }

    public var key: String?
    public var source: Source
    /// Set when the key file's mode lets others read it.
    public var openMode: UInt32?

    public static func resolve(_ store: Store, _ config: ReplicaConfig,
                               environment: [String: String]) throws(StoreError) -> ReplicaAppKey {
        if let stored = try AppKeyFile.read(store) {
            return ReplicaAppKey(key: stored.key, source: .file, openMode: stored.isOpenToOthers ? stored.mode : nil)
        }
        if let legacy = config.legacyAppKey { return ReplicaAppKey(key: legacy, source: .config, openMode: nil) }
        if let key = environment["TODO_APP_KEY"], !key.isEmpty {
            return ReplicaAppKey(key: key, source: .environment, openMode: nil)
        }
        return ReplicaAppKey(key: nil, source: .none, openMode: nil)
    }

    /// What a command says before using the key: where it is exposed, and the one command that
    /// fixes it. Empty when all is well.
    public func warnings(_ store: Store) -> [String] {
        var lines: [String] = []
        if source == .config {
            lines.append("warning: the app key is stored in \(store.displayPath(StoreLayout.configFile)), which other users "
                + "can read and a commit of the folder would publish; run 'todo remote set' to move it to "
                + "\(store.displayPath(AppKeyFile.name)) (mode 0600)")
        }
        if let mode = openMode {
            let path = store.layout.absolute(AppKeyFile.name)
            lines.append("warning: \(store.displayPath(AppKeyFile.name)) can be read by other users (mode "
                + String(mode, radix: 8).leftPadded(to: 4) + "); run: chmod 600 '\(path)'")
        }
        return lines
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
