#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoModel

/// The queue's names in sequence order, a window at a time, with what a push must know about each
/// operation's item beyond the window: how many of its operations follow, and the next one's
/// name (issue 21: push read the whole queue first, 2,727 MB at a million pending inserts).
///
/// The folder is walked once without holding its listing. A queue of at most `wholeUpTo`
/// operations is kept in memory and given as one window (read once, no sort). A longer one goes
/// through an external sort by item and sequence (`RunSorter`), whose merge gives each item's
/// operations together, so each one's followers are known; then through a sort by sequence,
/// whose merge is written to an unlinked scratch file that the windows read back (and read again
/// after `rewind`). Memory: a sort's budget while sorting, then a window of entries.
public final class QueueWindows {
    public struct Entry: Sendable, Equatable {
        public var name: OperationFileName
        /// The item's operations after this one in the queue.
        public var later: Int
        /// The item's next operation, if any.
        public var next: OperationFileName?
    }

    /// Operations in the queue (of the table asked for).
    public let count: Int
    public let window: Int
    /// The whole queue, when it fits in a window.
    private let small: [Entry]?
    private let file: EntryFile?
    private var position = 0

    /// `window`: operations a window holds once the queue is longer than `wholeUpTo` (at least
    /// `window`); a queue of up to `wholeUpTo` is one window.
    public init(_ store: Store, table: String?, window: Int, wholeUpTo: Int) throws(StoreError) {
        let window = max(1, window)
        let wholeUpTo = max(window, wholeUpTo)
        var names: [OperationFileName] = []
        var byItem: RunSorter?
        var count = 0
        try store.forEachOperationName { name throws(StoreError) in
            guard table == nil || name.table == table else { return }
            count += 1
            if byItem == nil {
                names.append(name)
                guard names.count > wholeUpTo else { return }
                byItem = RunSorter(budget: store.pendingIndexSortBudget, folders: store.scratchFolders(environment: [:]))
                for n in names { try QueueWindows.add(n, to: byItem!) }
                names = []
            } else {
                try QueueWindows.add(name, to: byItem!)
            }
        }
        self.count = count
        self.window = byItem == nil ? wholeUpTo : window
        if let byItem {
            small = nil
            file = try QueueWindows.sorted(byItem, store)
        } else {
            small = QueueWindows.entries(names.sorted { $0.sequence < $1.sequence })
            file = nil
        }
    }

    /// The next window's entries, in sequence order; [] once the queue is read.
    public func nextWindow() throws(StoreError) -> [Entry] {
        if let small {
            let end = min(small.count, position + window)
            defer { position = end }
            return Array(small[position..<end])
        }
        var entries: [Entry] = []
        while entries.count < window, let entry = try file!.next() { entries.append(entry) }
        return entries
    }

    /// Starts again at the first window.
    public func rewind() throws(StoreError) {
        position = 0
        do { try file?.rewind() } catch { throw .io(error) }
    }

    /// Entries of names in sequence order, held in memory.
    private static func entries(_ names: [OperationFileName]) -> [Entry] {
        var after: [String: (later: Int, next: OperationFileName)] = [:]
        var entries: [Entry] = []
        entries.reserveCapacity(names.count)
        for name in names.reversed() {
            let key = PendingIndex.itemKey(name)
            let known = after[key]
            entries.append(Entry(name: name, later: known.map { $0.later + 1 } ?? 0, next: known?.next))
            after[key] = (known.map { $0.later + 1 } ?? 0, name)
        }
        return entries.reversed()
    }

    private static func add(_ name: OperationFileName, to sorter: RunSorter) throws(StoreError) {
        do { try sorter.add(key: Array(PendingIndex.itemKey(name).utf8) + [0] + RunSorter.numberKey(name.sequence), payload: Array(name.name.utf8)) } catch { throw .io(error) }
    }

    /// The merge by item gives each operation's followers; the merge by sequence goes to the file.
    private static func sorted(_ byItem: RunSorter, _ store: Store) throws(StoreError) -> EntryFile {
        let bySequence = RunSorter(budget: store.pendingIndexSortBudget, folders: store.scratchFolders(environment: [:]))
        var failure: FileSystemError?
        // An item's operations: (sequence key, name), in sequence order.
        var item: (key: ArraySlice<UInt8>, ops: [(sequence: [UInt8], name: [UInt8])])?
        func flush() {
            guard let done = item else { return }
            for (i, op) in done.ops.enumerated() where failure == nil {
                let next = i + 1 < done.ops.count ? done.ops[i + 1].name : []
                let later = Array(String(done.ops.count - 1 - i).utf8)
                do throws(FileSystemError) {
                    try bySequence.add(key: op.sequence + op.name, payload: op.name + [0] + next + [0] + later)
                } catch { failure = error }
            }
            item = nil
        }
        do throws(FileSystemError) {
            try byItem.sorted { record in
                let key = record.key.dropLast(9), op = (Array(record.key.suffix(8)), record.payload)
                if item?.key == key {
                    item!.ops.append(op)
                } else {
                    flush()
                    item = (key, [op])
                }
                return failure == nil
            }
            flush()
            if let failure { throw failure }
            let file = try EntryFile(folders: store.scratchFolders(environment: [:]))
            try bySequence.sorted { record in
                do throws(FileSystemError) { try file.append(record.payload) } catch { failure = error }
                return failure == nil
            }
            if let failure { throw failure }
            try file.rewind()
            return file
        } catch {
            throw .io(error)
        }
    }
}

/// The entries in sequence order, in a scratch file unlinked as soon as it is open (nothing is
/// left behind, whatever ends the command): a 4-byte length, then `name␀next␀later`.
private final class EntryFile {
    let fd: Int32
    let path: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    /// Appending (the buffer holds bytes to write) until the first `rewind`.
    private var writing = true

    init(folders: [String]) throws(FileSystemError) {
        var last = FileSystemError(operation: "create", path: folders.first ?? "", code: ENOENT, reason: "no folder for the push's queue file")
        for folder in folders {
            let path = folder + "/push-queue-\(getpid())"
            let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            if fd >= 0 {
                unlink(path)
                self.fd = fd
                self.path = path
                return
            }
            last = FileSystemError(operation: "create", path: path, code: errno, reason: String(cString: strerror(errno)))
        }
        throw last
    }

    deinit { close(fd) }

    func append(_ payload: [UInt8]) throws(FileSystemError) {
        for shift in stride(from: 0, to: 32, by: 8) { buffer.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        buffer.append(contentsOf: payload)
        if buffer.count >= 1 << 18 { try flush() }
    }

    private func flush() throws(FileSystemError) {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("write")
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// To the first entry (what was appended is written first).
    func rewind() throws(FileSystemError) {
        if writing { try flush() }
        if lseek(fd, 0, SEEK_SET) < 0 { throw failure("seek") }
        writing = false
        buffer = []
        start = 0
        ended = false
    }

    func next() throws(StoreError) -> QueueWindows.Entry? {
        do throws(FileSystemError) {
            guard try fill(4) else { return nil }
            var length = 0
            for b in 0..<4 { length |= Int(buffer[start + b]) << (8 * b) }
            guard try fill(4 + length) else { throw FileSystemError(operation: "read", path: path, code: EIO, reason: "the queue file ends inside an entry") }
            let payload = buffer[(start + 4)..<(start + 4 + length)]
            start += 4 + length
            let fields = payload.split(separator: 0, omittingEmptySubsequences: false)
            guard fields.count == 3, let name = OperationFileName(parsing: String(decoding: fields[0], as: UTF8.self)),
                  let later = Int(String(decoding: fields[2], as: UTF8.self))
            else { throw FileSystemError(operation: "read", path: path, code: EIO, reason: "a damaged entry in the queue file") }
            let next = fields[1].isEmpty ? nil : OperationFileName(parsing: String(decoding: fields[1], as: UTF8.self))
            return QueueWindows.Entry(name: name, later: later, next: next)
        } catch {
            throw .io(error)
        }
    }

    /// Whether `n` bytes are buffered from `start` (reading more as needed); false at the end.
    private func fill(_ n: Int) throws(FileSystemError) -> Bool {
        while buffer.count - start < n {
            if ended { return false }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: max(1 << 16, n))
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure("read")
            }
            if got == 0 {
                ended = true
                return false
            }
            buffer.append(contentsOf: chunk[0..<got])
        }
        return true
    }

    private func failure(_ operation: String) -> FileSystemError {
        let code = errno
        return FileSystemError(operation: operation, path: path, code: code, reason: String(cString: strerror(code)))
    }
}

extension Store {
    /// The operation files, counted without holding their names (what a push leaves).
    public func operationCount() throws(StoreError) -> Int {
        var count = 0
        try forEachOperationName { _ in count += 1 }
        return count
    }
}
