#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Records in the order of their byte keys, in bounded memory: an external merge sort.
///
/// Records are kept in memory up to `budget` bytes; past it they are sorted and written to a run
/// file in a folder of their own, and `sorted` merges the runs (and what is still in memory) one
/// record at a time. So sorting a million items (`todo list`) holds about `budget` bytes plus a
/// 64 KB buffer per run, never the items. Run files are scratch data: written without fsync,
/// removed by `sorted` and at deinit. Keys compare as unsigned bytes; equal keys keep the order
/// they were added in.
public final class RunSorter {
    /// A number as a key that sorts as the number does (8 bytes, big-endian): an operation's
    /// sequence in the sorts of the queue.
    public static func numberKey(_ n: Int) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: Int64(n)) >> UInt64(56 - 8 * $0)) }
    }

    public struct Record: Equatable, Sendable {
        public var key: [UInt8]
        public var payload: [UInt8]
        public init(key: [UInt8], payload: [UInt8]) {
            self.key = key
            self.payload = payload
        }
        var size: Int { key.count + payload.count + 64 }  // with the arrays' own headers
    }

    private let budget: Int
    private let folders: [String]
    private var pending: [Record] = []
    private var pendingBytes = 0
    private var folder: String?
    /// Run files not merged yet, in order.
    public private(set) var runs: [String] = []
    /// The most records held in memory at once, and the runs written: what a test checks to know
    /// that a sort did not hold everything.
    public private(set) var peakRecords = 0
    public private(set) var runsWritten = 0
    private static let serial = Atomic<Int>(0)

    /// `folders`: where to make the runs' folder, tried in order (the first that can be written).
    public init(budget: Int = 8 << 20, folders: [String]) {
        self.budget = budget
        self.folders = folders
    }

    deinit { removeRuns() }

    public func add(key: [UInt8], payload: [UInt8]) throws(FileSystemError) {
        let record = Record(key: key, payload: payload)
        pending.append(record)
        pendingBytes += record.size
        peakRecords = max(peakRecords, pending.count)
        if pendingBytes > budget { try spill() }
    }

    /// Every record, smallest key first, while `body` returns true; then the runs are removed.
    public func sorted(_ body: (Record) -> Bool) throws(FileSystemError) {
        defer { removeRuns() }
        sortPending()
        if runs.isEmpty {
            for record in pending where !body(record) { break }
            pending = []
            return
        }
        var readers: [RunReader] = []
        for path in runs { readers.append(try RunReader(path)) }
        var heads: [Record?] = []
        for reader in readers { heads.append(try reader.next()) }
        var memoryIndex = 0
        while true {
            // The smallest head; runs before memory, earlier runs first, on equal keys.
            var best: Int? = nil
            for i in heads.indices {
                guard let head = heads[i] else { continue }
                if let b = best, !Self.less(head.key, heads[b]!.key) { continue }
                best = i
            }
            if memoryIndex < pending.count, best == nil || Self.less(pending[memoryIndex].key, heads[best!]!.key) {
                let record = pending[memoryIndex]
                memoryIndex += 1
                if !body(record) { break }
                continue
            }
            guard let b = best else { break }
            let record = heads[b]!
            heads[b] = try readers[b].next()
            if !body(record) { break }
        }
        pending = []
    }

    static func less(_ a: [UInt8], _ b: [UInt8]) -> Bool { compare(a, b) < 0 }

    /// Below, at or above zero as `a` sorts before, with or after `b`.
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                let n = min(x.count, y.count)
                let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                return c != 0 ? Int(c) : x.count - y.count
            }
        }
    }

    private func sortPending() {
        // Stable: the index breaks ties. One comparison a step, on a local copy (a class's
        // property is checked for exclusive access at every read).
        let records = pending
        let order = records.indices.sorted { i, j in
            let c = Self.compare(records[i].key, records[j].key)
            return c < 0 || (c == 0 && i < j)
        }
        pending = order.map { records[$0] }
    }

    private func spill() throws(FileSystemError) {
        sortPending()
        let dir = try runFolder()
        let path = dir + "/run-\(runs.count)"
        let writer = try RunWriter(path)
        runs.append(path)
        runsWritten += 1
        for record in pending { try writer.write(record) }
        try writer.close()
        pending = []
        pendingBytes = 0
    }

    private func runFolder() throws(FileSystemError) -> String {
        if let folder { return folder }
        var last = FileSystemError(operation: "create", path: folders.first ?? "", code: ENOENT, reason: "no folder for the sort's run files")
        for base in folders {
            Self.sweepDeadRuns(in: base)
            let n = Self.serial.add(1, ordering: .relaxed).newValue
            let path = base + "/sort-\(getpid())-\(n)"
            if mkdir(path, 0o700) == 0 {
                folder = path
                return path
            }
            let code = errno
            last = FileSystemError(operation: "create", path: path, code: code, reason: String(cString: strerror(code)))
        }
        throw last
    }

    /// Removes the run folders (`sort-<pid>-<n>` holding only `run-<k>` files) of processes that
    /// are gone: a command killed mid-sort cannot remove its own. A live process (or one of
    /// another user, EPERM) keeps its folder; anything else in `base` is not touched. Each new
    /// sort sweeps its folder first; a command that may walk without sorting calls it too.
    public static func sweepDeadRuns(in base: String) {
        guard let dir = opendir(base) else { return }
        var stale: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            let parts = name.split(separator: "-")
            guard parts.count == 3, parts[0] == "sort", let pid = Int32(parts[1]), UInt64(parts[2]) != nil else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { stale.append(base + "/" + name) }
        }
        closedir(dir)
        for folder in stale {
            guard let runs = opendir(folder) else { continue }
            var files: [String] = []
            var onlyRuns = true
            while let entry = readdir(runs) {
                let name = withUnsafePointer(to: entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
                if name == "." || name == ".." { continue }
                if name.hasPrefix("run-"), UInt64(name.dropFirst(4)) != nil { files.append(name) } else { onlyRuns = false }
            }
            closedir(runs)
            guard onlyRuns else { continue }
            for file in files { unlink(folder + "/" + file) }
            rmdir(folder)
        }
    }

    private func removeRuns() {
        for path in runs { unlink(path) }
        runs = []
        if let folder { rmdir(folder) }
        folder = nil
    }
}

/// Appends records to a run file: key length, payload length (4 bytes each, little endian), bytes.
private final class RunWriter {
    let fd: Int32
    let path: String
    var buffer: [UInt8] = []

    init(_ path: String) throws(FileSystemError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd < 0 { throw Self.failure("create", path) }
        buffer.reserveCapacity(1 << 18)
    }

    func write(_ record: RunSorter.Record) throws(FileSystemError) {
        for n in [record.key.count, record.payload.count] {
            for shift in stride(from: 0, to: 32, by: 8) { buffer.append(UInt8(truncatingIfNeeded: n >> shift)) }
        }
        buffer.append(contentsOf: record.key)
        buffer.append(contentsOf: record.payload)
        if buffer.count >= 1 << 18 { try flush() }
    }

    func flush() throws(FileSystemError) {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.failure("write", path)
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws(FileSystemError) {
        defer { Glibc.close(fd) }
        try flush()
    }

    static func failure(_ operation: String, _ path: String) -> FileSystemError {
        let code = errno
        return FileSystemError(operation: operation, path: path, code: code, reason: String(cString: strerror(code)))
    }
}

/// Reads a run file back one record at a time through a 64 KB buffer.
private final class RunReader {
    let fd: Int32
    let path: String
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var start = 0
    var end = 0

    init(_ path: String) throws(FileSystemError) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw RunWriter.failure("open", path) }
    }

    deinit { close(fd) }

    func next() throws(FileSystemError) -> RunSorter.Record? {
        guard let header = try take(8) else { return nil }
        var lengths = [0, 0]
        for i in 0..<2 {
            for b in 0..<4 { lengths[i] |= Int(header[i * 4 + b]) << (8 * b) }
        }
        guard let key = try take(lengths[0]), let payload = try take(lengths[1]) else {
            throw FileSystemError(operation: "read", path: path, code: EIO, reason: "the run file ends inside a record")
        }
        return RunSorter.Record(key: key, payload: payload)
    }

    /// `n` bytes, or nil at the end of the file (before any byte of them).
    private func take(_ n: Int) throws(FileSystemError) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(n)
        while out.count < n {
            if start == end {
                let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if got < 0 {
                    if errno == EINTR { continue }
                    throw RunWriter.failure("read", path)
                }
                if got == 0 {
                    if out.isEmpty && n > 0 { return nil }
                    throw FileSystemError(operation: "read", path: path, code: EIO, reason: "the run file ends inside a record")
                }
                start = 0
                end = got
            }
            let chunk = min(n - out.count, end - start)
            out.append(contentsOf: buffer[start..<start + chunk])
            start += chunk
        }
        return out
    }
}
