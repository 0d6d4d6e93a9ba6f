import TodoBasics
import TodoModel
import TodoStore

/// `todo pull --verify` (issue 22 item 3): reads every row of the replica's tables from the server
/// and compares each copy the replica keeps at the same version (`VersionCheck`). With `repair`,
/// each differing copy takes the server's row in one commit per page, with a receipt that keeps
/// the replaced values; nothing else changes (no token moves, no other row is applied). Without
/// it, nothing is written. A replica damaged by a server that once served half a write is found
/// and mended item by item, instead of a `pull --full` of the whole table.
public final class RemoteVerifier {
    public struct TableResult: Sendable, Equatable {
        public var table: String
        public var rows = 0
        /// Set when the server refused the query or lacks the table.
        public var rejected: QueryRefusal?
    }

    public struct Report: Sendable {
        public var tables: [TableResult] = []
        public var differences: [VersionCheck.Difference] = []
        /// The receipt numbers written, when repairing.
        public var receipts: [Int] = []
        public var warnings: [PullWarning] = []
        public var stop: SyncStop?
        public var repaired = false
    }

    let store: Store
    let client: TableClient
    let clock: Clock
    let pageSize: Int

    public init(store: Store, client: TableClient, clock: Clock, pageSize: Int) {
        self.store = store
        self.client = client
        self.clock = clock
        self.pageSize = pageSize
    }

    /// Verifies `table`, or every table of the replica.
    public func run(table: String?, repair: Bool) throws(StoreError) -> Report {
        var report = Report()
        report.repaired = repair
        var index = try LocalIndex(store: store)
        var tables = try store.tables().sorted()
        if let table { tables = [try store.resolveTable(table) ?? table] }
        for name in tables {
            var result = TableResult(table: name)
            defer { report.tables.append(result) }
            try index.expectMostlyNewRows(in: name, store: store)
            var reader = PageReader(client: client, table: name, filter: nil, pageSize: pageSize, mode: .cursor, token: nil)
            pages: while true {
                let next = reader.next()
                report.warnings += reader.takeMessages().warnings
                switch next {
                case .stopped(let stop):
                    report.stop = stop
                    return report
                case .notPaging(let fault):
                    report.stop = SyncStop(.notPaging(fault, read: .check(table: name), rows: result.rows))
                    return report
                case .rejected(let refusal):
                    result.rejected = refusal
                    break pages
                case .end:
                    break pages
                case .page(let rows, let received):
                    result.rows += received
                    var tx = try store.transaction()
                    var staged = false
                    for row in rows {
                        let found = VersionCheck.check(row, against: try index.local(table: name, id: row.id, store: store))
                        guard !found.isEmpty else { continue }
                        report.differences += found.differences
                        guard repair else { continue }
                        if let item = found.item { tx.putItem(item, table: name) } else if found.differences.contains(where: { $0.place == .item }) {
                            tx.removeItem(table: name, id: row.id)
                        }
                        for op in found.operations { tx.putOperation(op) }
                        if let conflict = found.conflict { tx.putConflict(conflict) }
                        let now = clock.nowText()
                        for var receipt in found.receipts {
                            receipt.at = now
                            report.receipts.append(tx.addReceipt(receipt).number)
                        }
                        staged = true
                    }
                    if staged { try store.commit(tx) }
                    index.discard()
                    reader.advance(past: rows, received: received)
                }
            }
        }
        return report
    }
}
