#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real file system, through POSIX calls (no Foundation: `todo` starts in a few milliseconds).
public struct LocalFileSystem: FileSystem {
    public init() {}

    /// Small files (records) take one `read`: a regular file returns fewer bytes than asked only at
    /// its end, so a short first read is the whole file, with no `fstat` and no second read (a push
    /// reads thousands of operation files). Bigger files (the server's logs) are sized by `fstat`.
    public func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? {
        try readFile(at: AT_FDCWD, path, path: path)
    }

    /// `name` relative to the open folder `folder` (or to the working directory, `AT_FDCWD`);
    /// `path` names the file in errors.
    private func readFile(at folder: Int32, _ name: String, path: @autoclosure () -> String) throws(FileSystemError) -> [UInt8]? {
        let fd = openat(folder, name, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw FileSystemError(operation: "open", path: path(), code: code, reason: errnoText(code))
        }
        defer { close(fd) }
        // The first read goes to the stack and is copied out at its size: no 16 KB array to
        // zero and trim for each small file (a push reads 10,000 of them).
        let first = 16_384
        var result = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: first) { buffer throws(FileSystemError) in
            let n = try syscall("read", path()) { read(fd, buffer.baseAddress, first) }
            return Array(buffer[0..<n])
        }
        if result.count < first { return result }
        var st = stat()
        _ = try syscall("stat", path()) { fstat(fd, &st) }
        var chunk = [UInt8](repeating: 0, count: max(Int(st.st_size) - first + 1, 4096))
        while true {
            let n = try syscall("read", path()) { chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    public func readFiles(in directory: String, names: [String]) throws(FileSystemError) -> [[UInt8]?] {
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder < 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return names.map { _ in nil } }
            throw FileSystemError(operation: "open directory", path: directory, code: code, reason: errnoText(code))
        }
        defer { close(folder) }
        var files: [[UInt8]?] = []
        files.reserveCapacity(names.count)
        for name in names { files.append(try readFile(at: folder, name, path: directory.appendingPath(name))) }
        return files
    }

    public func writeFiles(in directory: String, _ files: [(name: String, content: [UInt8]?)]) throws(FileSystemError) {
        let folder = try syscall("open directory", directory) { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(folder) }
        for (name, content) in files {
            if let content {
                try writeFile(at: folder, name, content, sync: false, path: directory.appendingPath(name))
            } else if unlinkat(folder, name, 0) != 0 {
                let code = errno
                if code == ENOENT { continue }
                throw FileSystemError(operation: "remove", path: directory.appendingPath(name), code: code, reason: errnoText(code))
            }
        }
    }

    public func existing(in directory: String, names: [String]) -> [Bool] {
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return names.map { _ in false } }
        defer { close(folder) }
        return names.map { faccessat(folder, $0, F_OK, 0) == 0 }
    }

    /// Writes over the old bytes and then trims the file, instead of truncating it to zero first.
    /// Same result, but ext4 frees no block when the size stays within the file's blocks: a
    /// truncate to zero frees them (a synchronous discard on a `discard` mount without journal)
    /// and makes close() flush the file (`auto_da_alloc`); together about 12x slower here.
    public func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool) throws(FileSystemError) {
        try writeFile(at: AT_FDCWD, path, bytes, sync: sync, path: path)
    }

    private func writeFile(at folder: Int32, _ name: String, _ bytes: [UInt8], sync: Bool,
                           path: @autoclosure () -> String) throws(FileSystemError) {
        let fd = try syscall("create", path()) { openat(folder, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = try syscall("write", path()) {
                bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + offset, $0.count - offset, off_t(offset)) }
            }
            offset += n
        }
        var st = stat()
        _ = try syscall("stat", path()) { fstat(fd, &st) }
        if Int(st.st_size) > bytes.count { _ = try syscall("truncate", path()) { ftruncate(fd, off_t(bytes.count)) } }
        if sync { _ = try syscall("fsync", path()) { fsync(fd) } }
    }

    public func rename(_ from: String, to: String) throws(FileSystemError) {
        _ = try syscall("rename", from) { Glibc.rename(from, to) }
    }

    public func removeFile(_ path: String) throws(FileSystemError) {
        if unlink(path) != 0 {
            let code = errno
            if code == ENOENT { return }
            throw FileSystemError(operation: "remove", path: path, code: code, reason: errnoText(code))
        }
    }

    public func removeDirectory(_ path: String) throws(FileSystemError) {
        if rmdir(path) != 0 {
            let code = errno
            if code == ENOENT { return }
            throw FileSystemError(operation: "remove directory", path: path, code: code, reason: errnoText(code))
        }
    }

    public func listDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        var names: [String] = []
        let found = try scanDirectory(path) { names.append($0); return true }
        return found ? names : nil
    }

    public func scanDirectory(_ path: String, _ body: (String) -> Bool) throws(FileSystemError) -> Bool {
        guard let dir = opendir(path) else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return false }
            throw FileSystemError(operation: "list", path: path, code: code, reason: errnoText(code))
        }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { ptr in
                ptr.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != "..", !body(name) { break }
        }
        return true
    }

    public func createDirectory(_ path: String) throws(FileSystemError) {
        if isDirectory(path) { return }
        let parent = path.parentPath
        if parent != path && !parent.isEmpty && parent != "/" && !isDirectory(parent) {
            try createDirectory(parent)
        }
        if mkdir(path, 0o755) != 0 {
            let code = errno
            if code == EEXIST && isDirectory(path) { return }
            throw FileSystemError(operation: "create directory", path: path, code: code, reason: errnoText(code))
        }
    }

    public func syncDirectory(_ path: String) throws(FileSystemError) {
        let fd = try syscall("open directory", path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        _ = try syscall("fsync", path) { fsync(fd) }
    }

    public func syncFileSystem(_ path: String) throws(FileSystemError) {
        let fd = try syscall("open directory", path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        if let syncfs = Self.syncfs {
            _ = try syscall("syncfs", path) { syncfs(fd) }
        } else {
            _ = try syscall("sync", path) { sync(); return 0 }
        }
    }

    /// glibc's syncfs(2), which the Glibc module does not export (it needs _GNU_SOURCE).
    private static let syncfs: (@convention(c) (Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()

    public func fileExists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    public func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    public func isSymbolicLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }
}
