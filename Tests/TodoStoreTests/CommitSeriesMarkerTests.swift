import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// In-flight markers in a commit series live in the journal only, until a commit stages their
/// op again or the series finishes; at no instant may a crash or a reader miss one.
@Suite struct CommitSeriesMarkerTests {
    static func op(_ n: Int, attempted: Bool = false) -> PendingOperation {
        let item = Item(id: "i\(n)", fields: ["text": .string("t\(n)")])
        var op = PendingOperation(sequence: n, table: "todoitem", id: item.id, kind: .insert, item: item, base: nil,
                                  queuedAt: "2024-05-01T09:00:01.000Z")
        op.attempted = attempted
        if attempted { op.attemptedAt = "2024-05-01T09:00:02.000Z" }
        return op
    }

    /// A store with items added offline and their ops 1...40 queued, none attempted.
    static func queued(_ dir: TempDirectory) throws -> Store {
        let store = try makeStore(dir)
        var tx = try store.transaction()
        for n in 1...40 {
            tx.putOperation(op(n))
            tx.putItem(op(n).item, table: "todoitem")
        }
        tx.setNextSequence(41)
        try store.commit(tx)
        return store
    }

    /// What the op file in the folder says, read past any journal.
    static func inFolder(_ store: Store, _ n: Int) throws -> PendingOperation? {
        let path = store.layout.absolute(store.layout.operation(op(n)))
        return try LocalFileSystem().readFile(path).map { try OperationFile(json: JSONValue.parse($0)).value }
    }

    /// The store as the next writer finds it after a crash right now: a copy, opened (recovered).
    static func afterCrash(_ dir: TempDirectory, into copy: TempDirectory) throws -> Store {
        CommitSeriesTests.copyTree(dir.sub(".todo"), to: copy.sub(".todo"))
        return try Store.open(at: copy.sub(".todo"), fs: LocalFileSystem(), writable: true, command: "test")
    }

    /// Markers for ops 1...30, then a commit answering 1...20 (removed) and marking 31...40: the
    /// folder never gets a marker, yet a reader and a crash at each step see every one, and
    /// `finish` writes the ones still held.
    @Test func markersStayInTheJournalUntilReplacedOrFinished() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try Self.queued(dir)
        let series = CommitSeries(store: store)
        var first = try store.transaction()
        for n in 1...30 { first.putInFlightMarker(Self.op(n, attempted: true)) }
        try series.commit(first)
        #expect(try Self.inFolder(store, 5) == Self.op(5), "the folder keeps the op as queued")

        let reader = try Store.open(at: dir.sub(".todo"), fs: LocalFileSystem(), writable: false, command: "status")
        let seen = try reader.consistentRead { s throws(StoreError) in try s.operations() }
        #expect(seen == (1...30).map { Self.op($0, attempted: true) } + (31...40).map { Self.op($0) })

        var second = store.transaction(following: first)
        for n in 1...20 { second.removeOperation(Self.op(n)) }
        for n in 31...40 { second.putInFlightMarker(Self.op(n, attempted: true)) }
        try series.commit(second)
        #expect(try Self.inFolder(store, 3) == nil, "an answered op is removed at once")
        #expect(try Self.inFolder(store, 25) == Self.op(25))

        let copy = TempDirectory()
        defer { copy.remove() }
        let recovered = try Self.afterCrash(dir, into: copy)
        #expect(try recovered.operations() == (21...40).map { Self.op($0, attempted: true) },
                "the second journal still holds the first commit's markers it did not replace")
        #expect(Doctor.check(recovered).problems.isEmpty)

        try series.finish()
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo/journal.json")))
        for n in 21...40 { #expect(try Self.inFolder(store, n) == Self.op(n, attempted: true)) }
        #expect(try store.operations().count == 20)
        #expect(Doctor.check(store).problems.isEmpty)
    }

    /// A marker staged again as an ordinary op (its marker cleared) is written in place, and a
    /// plain commit writes markers in place like any file.
    @Test func aMarkerRestagedAsAnOpOrCommittedPlainlyIsWritten() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try Self.queued(dir)
        var plain = try store.transaction()
        plain.putInFlightMarker(Self.op(40, attempted: true))
        try store.commit(plain)
        #expect(try Self.inFolder(store, 40) == Self.op(40, attempted: true), "no series: written in place")

        let series = CommitSeries(store: store)
        var first = try store.transaction()
        for n in 1...30 { first.putInFlightMarker(Self.op(n, attempted: true)) }
        var edited = Self.op(30)
        edited.item.fields["text"] = "edited"
        first.putOperation(edited)
        try series.commit(first)
        #expect(try Self.inFolder(store, 30) == edited)
        var second = store.transaction(following: first)
        for n in 1...10 { second.putOperation(Self.op(n)) }
        for n in 31...35 { second.putItem(Item(id: "x\(n)", fields: [:]), table: "todoitem") }
        try series.commit(second)
        #expect(try Self.inFolder(store, 10) == Self.op(10))
        #expect(try Self.inFolder(store, 11) == Self.op(11))

        let copy = TempDirectory()
        defer { copy.remove() }
        let recovered = try Self.afterCrash(dir, into: copy)
        #expect(try recovered.operations() == (1...10).map { Self.op($0) } + (11...29).map { Self.op($0, attempted: true) }
            + [edited] + (31...39).map { Self.op($0) } + [Self.op(40, attempted: true)])
        try series.finish()
        #expect(try store.operations() == recovered.operations())
    }
}
