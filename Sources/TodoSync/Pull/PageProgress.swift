import TableProtocol
import TodoModel

/// Notices a server that does not page as asked, so a pull always ends (issue 15 item 4).
///
/// A server or proxy that ignores `$filter`, `$orderby`, `$top` or `$skip`, or returns the same
/// page forever, would otherwise keep a pull asking for the next page with the lock held. An honest
/// server's pages bring rows this pull has not applied yet, with two exceptions that are bounded:
/// after a switch to skip mode the pull re-reads the rows it applied at or after its restart point
/// (at most all of them), and a skip window may overlap the one before when rows change meanwhile.
/// So the pull stops when
/// - a skip or plain page repeats the page before it exactly and brings nothing new (the server
///   ignores `$skip`);
/// - a skip page is not in `updatedAt` order, or holds rows before its `updatedAt ge T` bound (the
///   server ignores `$orderby` or `$filter`): paging by `$skip` would then miss rows silently;
/// - pages in a row bring nothing new, and more rows than this pull applied at or after its
///   restart point, plus a page: no honest re-read is that long.
///
/// Rows are remembered as hashes of (id, updatedAt, version) while they are at or after the
/// cursor's `updatedAt`; older ones are forgotten, so memory follows the rows sharing the latest
/// timestamps, not the table.
struct PageProgress {
    typealias Fault = PagingFault

    let pageSize: Int
    /// Hash of each remembered row → its updatedAt in ticks (nil when it has none or it does not parse).
    private var seen: [Int: Int64?] = [:]
    private var lastPage: (mode: PageCursor.Mode, rows: [Int])?
    /// Rows received in consecutive pages that brought nothing new.
    private var reread = 0
    private var lastFloor: Int64?

    init(pageSize: Int) { self.pageSize = pageSize }

    /// Checks a page before it is applied. `bound` is the updatedAt text the request asked for
    /// (`ge` in skip mode), if any.
    mutating func check(_ rows: [Item], received: Int, mode: PageCursor.Mode, bound: String?) -> Fault? {
        if mode == .skip {
            let stamps = rows.compactMap { $0.system.updatedAt.flatMap(WireInstant.init(wireText:)) }
            if zip(stamps, stamps.dropFirst()).contains(where: { $0 > $1 }) { return .outOfOrder }
            if let bound = bound.flatMap(WireInstant.init(wireText:)), stamps.contains(where: { $0 < bound }) { return .beforeTheBound }
        }
        let hashes = rows.map(Self.hash)
        defer { lastPage = (mode, hashes) }
        if hashes.contains(where: { seen[$0] == nil }) {
            reread = 0
            return nil
        }
        if mode != .cursor, let last = lastPage, last.mode == mode, last.rows == hashes { return .samePageAgain }
        reread += received
        return reread > seen.count + pageSize ? .nothingNew(rows: reread) : nil
    }

    /// Remembers an applied page, and forgets rows before the cursor's updatedAt `floor`.
    mutating func applied(_ rows: [Item], floor: String?) {
        for row in rows { seen[Self.hash(row)] = row.system.updatedAt.flatMap(WireInstant.init(wireText:))?.ticks }
        guard let floor = floor.flatMap(WireInstant.init(wireText:))?.ticks, floor != lastFloor else { return }
        lastFloor = floor
        seen = seen.filter { _, ticks in ticks.map { $0 >= floor } ?? true }
    }

    static func hash(_ row: Item) -> Int {
        var hasher = Hasher()
        hasher.combine(ItemID.key(row.id))
        hasher.combine(row.system.updatedAt)
        hasher.combine(row.system.version)
        return hasher.finalize()
    }
}
