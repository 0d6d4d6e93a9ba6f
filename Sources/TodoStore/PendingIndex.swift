import TodoBasics
import TodoModel

/// The pending operations by item, derived from the operation files, so that a local change
/// reads its item's operations without listing a queue of 100,000 files (issue 21). The
/// operation files stay the truth: the index only says which names to open.
///
/// `.todo/cache/pending/` (README "The .todo format"):
/// - `000` … `3ff`: a bucket per hash of `<table>.<enc>`, `{"operations": [names]}`, the names
///   of its items' operation files; a bucket with none has no file.
/// - `deletes`: the same for every pending delete: the ids that have operations but no item
///   file, which short ids must know (`knownIDKeys`).
/// - `queue-<k>` and `items-<k>`: the pages `log` and `diff` walk in queue order without sorting
///   the queue (`PendingPages`).
/// - `strays`: the names in the folder that are no operation file name (put there by hand), so
///   that the readers of the pages refuse them as a listing does (`Store.queuePages`).
/// - `stamp`: the operations folder's stat stamp when the index last matched its listing.
///
/// Trust: adding, removing or renaming a file in a folder moves the folder's mtime and ctime, and
/// ctime cannot be set back. So the index is used only while the folder's stamp is the recorded
/// one and no journal is on disk; otherwise the folder is listed, as before the index existed,
/// and a writer rebuilds the index from that listing. An operation file added or deleted by
/// hand therefore makes the index stale, never wrong; a listed file that is gone is noticed on
/// reading it (and the folder is listed). A local change (`Store.keepsPendingIndex`) stages the
/// buckets it changes in its own commit (`stage`) and records the new stamp after it
/// (`restamp`); any other commit leaves the old stamp, which no longer matches.
enum PendingIndex {
    static let bucketCount = 1024
    static let directory = StoreLayout.cacheDirectory + "/pending"
    static let stampFile = directory + "/stamp"
    static let deletesFile = directory + "/deletes"
    /// The names in the operations folder that are no operation file name (`strays`).
    static let straysFile = directory + "/strays"
    /// 2: with the pages of the queue (an index of version 1 has none, and is stale); 3: with
    /// `strays` (an index of version 2 vouched for a folder holding one, and its pages skipped it);
    /// 4: pages of 250 numbers (those of version 3 hold 1,000: read by today's names, they would
    /// give a wrong order).
    static let stampHeader = "todo pending stamp 4"

    /// FNV-1a of `<table>.<enc>`: where an item's operation names are kept.
    static func bucket(table: String, encodedID: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in table.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        hash = (hash ^ UInt32(UInt8(ascii: "."))) &* 16_777_619
        for byte in encodedID.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash % UInt32(bucketCount))
    }

    static func bucketPath(_ bucket: Int) -> String {
        let hex = String(bucket, radix: 16)
        return directory + "/" + String(repeating: "0", count: 3 - hex.count) + hex
    }

    static func json(_ names: [String]) -> JSONValue {
        ["operations": .array(names.sorted().map { .string($0) })]
    }

    /// The names a bucket (or `deletes`) holds; [] when it has no file, nil when it is damaged.
    static func names(_ relative: String, in store: Store) -> [String]? { nameList(relative, in: store)?.strings }

    /// The names a bucket or page holds, as read (`PendingNames`); nil when it is damaged.
    static func nameList(_ relative: String, in store: Store) -> PendingNames? {
        let read: [UInt8]?
        do { read = try store.fs.readFile(store.layout.absolute(relative)) } catch { return nil }
        return PendingNames(read)
    }

    /// The folder stamp the index vouches for, when it vouches for the folder as it is now.
    static func vouchedStamp(_ store: Store) -> FileStamp? {
        guard let folder = store.fs.directoryStamp(store.layout.absolute(StoreLayout.operationsDirectory)),
              let bytes = (try? store.fs.readFile(store.layout.absolute(stampFile))) ?? nil,
              parseStamp(bytes) == folder
        else { return nil }
        return folder
    }

    static func stampText(_ s: FileStamp) -> [UInt8] {
        Array("\(stampHeader)\n\(s.inode) \(s.size) \(s.modified) \(s.changed)\n".utf8)
    }

    static func parseStamp(_ bytes: [UInt8]) -> FileStamp? {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 3, lines[0] == stampHeader, lines[2].isEmpty else { return nil }
        let fields = lines[1].split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 4, let inode = UInt64(fields[0]), let size = Int64(fields[1]),
              let modified = Int64(fields[2]), let changed = Int64(fields[3]) else { return nil }
        return FileStamp(inode: inode, size: size, modified: modified, changed: changed)
    }

    // MARK: Keeping it

    /// Stages the buckets a local change's commit changes, when the index matched the folder at
    /// the start of the command (`Store.pendingIndexStamp`) and still does. False: the index is left as it is and
    /// goes stale with the commit.
    static func stage(into tx: inout StoreTransaction, _ store: Store) -> Bool {
        guard store.keepsPendingIndex || store.stagesPendingIndex, let verified = store.pendingIndexStamp,
              store.fs.directoryStamp(store.layout.absolute(StoreLayout.operationsDirectory)) == verified
        else { return false }
        let prefix = StoreLayout.operationsDirectory + "/"
        var changes: [String: (added: Set<String>, removed: Set<String>)] = [:]
        var items: [String: (table: String, encodedID: String, added: Set<String>, removed: Set<String>)] = [:]
        for (path, content) in tx.staged where path.hasPrefix(prefix) {
            let name = String(path.dropFirst(prefix.count))
            guard let parsed = OperationFileName(parsing: name) else { continue }
            // A push's in-flight marker rewrites its op file: no name changes (and no file is looked up).
            if content != nil && tx.shortLived.contains(path) { continue }
            var targets = [bucketPath(bucket(table: parsed.table, encodedID: parsed.encodedID)), queuePage(parsed.sequence)]
            if parsed.kind == .delete { targets.append(deletesFile) }
            for target in targets {
                if content == nil { changes[target, default: ([], [])].removed.insert(name) } else { changes[target, default: ([], [])].added.insert(name) }
            }
            let item = itemKey(parsed)
            if items[item] == nil { items[item] = (parsed.table, parsed.encodedID, [], []) }
            if content == nil { items[item]!.removed.insert(name) } else { items[item]!.added.insert(name) }
        }
        var read: [String: PendingNames?] = [:]
        func current(_ path: String) -> PendingNames? {
            if let known = read[path] { return known }
            let names = nameList(path, in: store)
            read[path] = .some(names)
            return names
        }
        // An item's names move to the page of its first operation after the change.
        for item in items.values {
            guard let bucketNames = current(bucketPath(bucket(table: item.table, encodedID: item.encodedID))) else { return false }
            let before = bucketNames.strings(endingWith: "." + item.table + "." + item.encodedID + ".json")
                .filter { OperationFileName(parsing: $0).map { $0.table == item.table && $0.encodedID == item.encodedID } ?? false }
            let after = Set(before).subtracting(item.removed).union(item.added)
            if let first = firstSequence(before) { changes[itemsPage(first), default: ([], [])].removed.formUnion(before) }
            if let first = firstSequence(after) { changes[itemsPage(first), default: ([], [])].added.formUnion(after) }
        }
        var staged: [(String, PendingNames.Update)] = []
        for (path, change) in changes {
            guard let current = current(path) else { return false }  // damaged: rebuilt from a listing later
            staged.append((path, current.updated(removing: change.removed, adding: change.added)))
        }
        for (path, update) in staged {
            switch update {
            case .write(let bytes): tx.putEncoded(path, bytes)
            case .remove: tx.remove(path)
            case .unchanged: break
            case .encodeValues(let names): tx.put(path, json(Array(Set(names))))
            }
        }
        return true
    }

    /// Records the folder's stamp after a commit that kept the index (best effort: without it the
    /// index is stale and the next writer rebuilds it). Renamed into place but not fsynced: the
    /// commit has made the buckets and the folder durable before, so a stamp that survives a
    /// crash vouches for what is on disk, and one that does not (old, empty) is only stale.
    static func restamp(_ store: Store) {
        let path = store.layout.absolute(stampFile)
        guard let folder = store.fs.directoryStamp(store.layout.absolute(StoreLayout.operationsDirectory)) else { return }
        do {
            try AtomicFile.write(stampText(folder), to: path, in: store.fs, sync: false)
            store.pendingIndexStamp = folder
        } catch {
            try? store.fs.removeFile(AtomicFile.tempPath(for: path))
            store.pendingIndexStamp = nil
        }
    }

    /// Rewrites the whole index from a walk of the operations folder taken after `folder` was
    /// stamped, a file at a time (`PendingIndexWalk`). The old stamp goes first (durably), so a
    /// rebuild cut short is never trusted; the files are durable (one syncfs) before the new
    /// stamp is renamed into place. Only for a writer; a failure leaves no stamp, and the folder
    /// is listed until a rebuild succeeds.
    static func rebuild(_ store: Store, folder: FileStamp?) {
        store.pendingIndexStamp = nil
        guard store.isWritable, let folder else { return }
        let fs = store.fs
        let dir = store.layout.absolute(directory)
        do throws(FileSystemError) {
            try CacheFolder.prepare(store)
            try fs.createDirectory(dir)
            if fs.fileExists(store.layout.absolute(stampFile)) {
                try fs.removeFile(store.layout.absolute(stampFile))
                try fs.syncDirectory(dir)
            }
            var written = Set<String>()
            var figures = PendingIndexFigures()
            try PendingIndexWalk.forEachFile(store, figures: &figures) { path, names throws(FileSystemError) in
                try fs.writeFile(store.layout.absolute(path), json(names).canonicalBytes(), sync: false)
                written.insert(path)
            }
            store.pendingIndexFigures.merge(figures)
            for name in try fs.listDirectory(dir) ?? [] where !written.contains(directory + "/" + name) {
                try fs.removeFile(dir.appendingPath(name))
            }
            try fs.syncFileSystem(store.layout.root)
            try AtomicFile.write(stampText(folder), to: store.layout.absolute(stampFile), in: fs)
            store.pendingIndexStamp = folder
        } catch {
            try? fs.removeFile(AtomicFile.tempPath(for: store.layout.absolute(stampFile)))
        }
    }
}

/// `.todo/cache`: derived data, kept out of git by its own `.gitignore`.
enum CacheFolder {
    static func prepare(_ store: Store) throws(FileSystemError) {
        let dir = store.layout.absolute(StoreLayout.cacheDirectory)
        try store.fs.createDirectory(dir)
        let ignore = dir.appendingPath(".gitignore")
        if !store.fs.fileExists(ignore) { try AtomicFile.write(Array("*\n".utf8), to: ignore, in: store.fs) }
    }
}

extension PendingIndex {
    /// `todo doctor`: where an index that vouches for the operations folder disagrees with it
    /// (a damaged file, a name it misses or lists in vain), as (path, message); then a writer
    /// rebuilds an index that is wrong or stale. A stale one is no finding: it is a cold cache.
    /// The folder's files are compared one at a time, in path order, with the index's
    /// (`PendingIndexWalk`): the queue is never held.
    static func check(_ store: Store) -> [(String, DoctorFinding)] {
        let folder = store.fs.directoryStamp(store.layout.absolute(StoreLayout.operationsDirectory))
        guard vouchedStamp(store) != nil, folder != nil else {
            rebuild(store, folder: folder)
            return []
        }
        let existing = (((try? store.fs.listDirectory(store.layout.absolute(directory))) ?? nil) ?? [])
            .map { directory + "/" + $0 }.filter { $0 != stampFile && !StoreLayout.isLeftover($0.lastPathComponent) }.sorted()
        let rebuilt = store.isWritable
        var findings: [(String, DoctorFinding)] = []
        func compare(_ path: String, _ wanted: Set<String>) {
            guard let actual = names(path, in: store).map(Set.init) else {
                findings.append((path, .pendingIndex(.damaged, rebuilt: rebuilt)))
                return
            }
            for name in wanted.subtracting(actual).sorted() {
                findings.append((path, .pendingIndex(.misses(operationFile: store.displayPath(StoreLayout.operationsDirectory + "/" + name)), rebuilt: rebuilt)))
            }
            for name in actual.subtracting(wanted).sorted() {
                findings.append((path, .pendingIndex(.listsMissing(operationFile: store.displayPath(StoreLayout.operationsDirectory + "/" + name)), rebuilt: rebuilt)))
            }
        }
        var at = 0
        var figures = PendingIndexFigures()
        do {
            try PendingIndexWalk.forEachFile(store, figures: &figures) { path, names in
                while at < existing.count, existing[at] < path {
                    compare(existing[at], [])
                    at += 1
                }
                if at < existing.count, existing[at] == path { at += 1 }
                compare(path, Set(names))
            }
        } catch {
            return []  // the folder's own problems are reported by the check of the operations
        }
        store.pendingIndexFigures.merge(figures)
        while at < existing.count {
            compare(existing[at], [])
            at += 1
        }
        if !findings.isEmpty { rebuild(store, folder: folder) }
        return findings
    }
}

extension Store {
    /// For pull, whose commits change few operations: each commit keeps the index of pending
    /// operations when it vouched for the operations folder as the command started, so that
    /// `log` and `diff` after it walk its pages. A stale index stays stale (it is not rebuilt
    /// here: that walks the queue), for the next local change to rebuild.
    public func keepPendingIndexInCommits() {
        stagesPendingIndex = true
        if let stamp = PendingIndex.vouchedStamp(self) { pendingIndexStamp = stamp }
    }

    /// Whether the index of pending operations vouches for the operations folder as it is now.
    public var pendingIndexVouches: Bool { PendingIndex.vouchedStamp(self) != nil }

    /// Rebuilds the index of pending operations from a walk of the operations folder (a writer
    /// only; a failure leaves it stale). For push, which takes most of the queue out in many
    /// commits: keeping the index in each of them cost 55% more CPU on a push of 10,000 inserts
    /// (1.86 s instead of 1.19 s), a walk of what is left after them costs little.
    public func rebuildPendingIndex() {
        PendingIndex.rebuild(self, folder: fs.directoryStamp(layout.absolute(StoreLayout.operationsDirectory)))
    }

    /// Where a command may put scratch files (`RunSorter`'s runs): `.todo/cache` when it can be
    /// written, else the system's temporary folder (a read-only replica).
    public func scratchFolders(environment: [String: String]) -> [String] {
        var folders: [String] = []
        if (try? CacheFolder.prepare(self)) != nil { folders.append(layout.absolute(StoreLayout.cacheDirectory)) }
        let tmp = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        folders.append(tmp)
        return folders
    }

    /// Removes what sorts killed mid-way left in `.todo/cache` (`RunSorter.sweepDeadRuns`): only
    /// a later sort would, and `diff` and `log` walk the index's pages without one.
    public func sweepDeadSorts() {
        RunSorter.sweepDeadRuns(in: layout.absolute(StoreLayout.cacheDirectory))
    }
}
