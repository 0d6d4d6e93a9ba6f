import TodoBasics

/// The queue in pages, part of the index of pending operations (`PendingIndex`), so that `log`
/// and `diff` print their first line at once and walk a queue of a million operations without
/// sorting it (issue 21 item 4; they sorted every name first: 0.7 s of CPU at 100,000).
///
/// Operation numbers only grow, so a page per 250 numbers, read in the pages' order and sorted
/// within, is the queue order:
/// - `queue-<k>`: the names of the operations numbered 250·k … 250·k + 249 (`log`);
/// - `items-<k>`: the names of every operation of the items whose *first* operation has such a
///   number (`diff`, which shows items in the order of their first operation).
/// Same format, trust and upkeep as the buckets: derived from the listing, used only while the
/// index vouches for the operations folder, checked and rebuilt by `doctor`.
extension PendingIndex {
    /// Why 250 and not 1,000: a local change rewrites the two pages its item leaves or joins,
    /// and pages of 1,000 names (76 KB each at 100,000 pending operations) made `rm` 10.1 ms.
    /// A million operations take 8,000 pages, a listing of the index's folder that `log` and
    /// `diff` make once.
    static let pageSize = 250
    static let queuePrefix = "queue-"
    static let itemsPrefix = "items-"

    static func queuePage(_ sequence: Int) -> String { directory + "/" + queuePrefix + pad(sequence / pageSize, 7) }
    static func itemsPage(_ firstSequence: Int) -> String { directory + "/" + itemsPrefix + pad(firstSequence / pageSize, 7) }

    static func itemKey(_ name: OperationFileName) -> String { name.table + "/" + name.encodedID }

    static func firstSequence<S: Sequence<String>>(_ names: S) -> Int? {
        names.compactMap { OperationFileName(parsing: $0)?.sequence }.min()
    }
}

/// Which pages of the queue: by operation (`log`) or by item's first operation (`diff`).
public enum QueuePages: Sendable {
    case operations, items

    var prefix: String { self == .operations ? PendingIndex.queuePrefix : PendingIndex.itemsPrefix }
}

extension Store {
    /// The numbers of the queue's pages in order, when the index of pending operations vouches
    /// for the operations folder as it is now; nil otherwise (list the folder then). A listing of
    /// the index's folder: about 3,000 names at a million operations. A name in the folder that
    /// is no operation file name (`strays`) is refused as a listing refuses it, before any page.
    public func queuePages(_ kind: QueuePages) throws(StoreError) -> [Int]? {
        guard PendingIndex.vouchedStamp(self) != nil,
              let listed = (try? fs.listDirectory(layout.absolute(PendingIndex.directory))) ?? nil
        else { return nil }
        guard let strays = PendingIndex.names(PendingIndex.straysFile, in: self) else {
            throw .corrupt(path: displayPath(PendingIndex.straysFile), reason: "a damaged file of the index of pending operations, derived data")
        }
        if let stray = strays.min() { _ = try operationName(listed: stray) }
        return listed.compactMap { $0.hasPrefix(kind.prefix) ? Int($0.dropFirst(kind.prefix.count)) : nil }.sorted()
    }

    /// The names on one page, in queue order. A damaged page is an error naming it (its hint:
    /// remove it, or run `doctor`, which rebuilds it); lines may have been printed, so the walk
    /// cannot go back to a sort.
    public func queuePage(_ kind: QueuePages, _ number: Int) throws(StoreError) -> [OperationFileName] {
        let path = PendingIndex.directory + "/" + kind.prefix + pad(number, 7)
        guard let names = PendingIndex.names(path, in: self) else {
            throw .corrupt(path: displayPath(path), reason: "a damaged page of the index of pending operations, derived data")
        }
        // Refused as in a listing: a misnamed file would be read by todo's name, find nothing, and
        // be skipped (the index is rebuilt from the folder as it is, misnamed files and all).
        var parsed: [OperationFileName] = []
        for name in names where OperationFileName(parsing: name) != nil { parsed.append(try operationName(listed: name)) }
        return parsed.sorted { $0.sequence < $1.sequence }
    }

    /// Whether the item has pending operations, from the index's bucket (nil: no vouching index).
    public func hasIndexedOperations(table: String, encodedID: String) -> Bool? {
        guard PendingIndex.vouchedStamp(self) != nil,
              let names = PendingIndex.names(PendingIndex.bucketPath(PendingIndex.bucket(table: table, encodedID: encodedID)), in: self)
        else { return nil }
        return names.contains { OperationFileName(parsing: $0).map { $0.table == table && $0.encodedID == encodedID } ?? false }
    }
}
