import Testing
import TodoModel

/// `VersionCheck` (issue 22 item 3): which local copies claim the server row's version yet differ
/// from it, and how each is repaired. One case per row of its rules.
@Suite struct VersionCheckTests {
    typealias T = PulledRowTests
    /// The whole row at v1: text, complete and a note that a torn read once hid.
    static let row = T.server("x", "v1", ["text": "a", "complete": false, "note": "n"])
    /// The torn copy: v1 without the note.
    static let torn = T.server("x", "v1", ["text": "a", "complete": false])

    @Test func anItemThatMatchesItsVersionIsFine() {
        #expect(VersionCheck.check(Self.row, against: T.local(PulledRow.itemCopy(Self.row))).isEmpty)
    }

    @Test func anItemAtAnotherVersionIsNotChecked() {
        let older = T.server("x", "v0", ["text": "old"])
        #expect(VersionCheck.check(Self.row, against: T.local(PulledRow.itemCopy(older))).isEmpty)
    }

    @Test func aRowWithoutVersionChecksNothing() {
        let unversioned = T.server("x", nil, ["text": "z"])
        #expect(VersionCheck.check(unversioned, against: T.local(PulledRow.itemCopy(Self.torn))).isEmpty)
    }

    @Test func aTornItemTakesTheRowWithAReceipt() throws {
        let repair = VersionCheck.check(Self.row, against: T.local(PulledRow.itemCopy(Self.torn)))
        #expect(repair.differences.map(\.place) == [.item])
        #expect(repair.differences.first?.fields == [.init(name: "note", here: nil, server: "n")])
        #expect(repair.item == PulledRow.itemCopy(Self.row))
        let receipt = try #require(repair.receipts.first)
        #expect(receipt.decision == .repair && receipt.lost == ["client": ["note": .null]])
    }

    @Test func aLiveItemWhoseRowIsDeletedAtItsVersionIsRemoved() {
        let deleted = T.server("x", "v1", ["text": "a", "complete": false], deleted: true)
        let repair = VersionCheck.check(deleted, against: T.local(PulledRow.itemCopy(Self.torn)))
        #expect(repair.differences.first?.fields == [.init(name: "ms_deleted", here: false, server: true)])
        #expect(repair.item == nil && repair.differences.first?.place == .item)
    }

    @Test func anUnsealedEditKeepsItsChangeAndTakesTheHiddenField() {
        let op = T.op(.update, ["text": "b", "complete": false], base: Self.torn)
        let repair = VersionCheck.check(Self.row, against: T.local(T.edited(["text": "b", "complete": false], base: Self.torn), [op]))
        #expect(repair.differences.map(\.place) == [.base(sequence: 1)])
        #expect(repair.operations.first?.base == Self.row)
        #expect(repair.operations.first?.item.fields == ["text": "b", "complete": false, "note": "n"])
        #expect(repair.item?.fields == ["text": "b", "complete": false, "note": "n"])
    }

    @Test func aSealedOpKeepsWhatItSentAndTakesOnlyTheBase() {
        let op = T.op(.update, ["text": "b", "complete": false], base: Self.torn, attempted: true)
        let repair = VersionCheck.check(Self.row, against: T.local(T.edited(["text": "b", "complete": false], base: Self.torn), [op]))
        #expect(repair.operations.first?.base == Self.row)
        #expect(repair.operations.first?.item == op.item)
        #expect(repair.item == nil)
    }

    @Test func aConflictsServerCopyTakesTheRowAndItsClashesAreRecomputed() throws {
        let op = T.op(.update, ["text": "b", "complete": false, "note": "mine"], base: T.server("x", "v0", ["text": "a", "complete": false]))
        let conflict = Conflict(table: "todoitem", id: "x", reason: .conflict, operation: op.reference, status: 412, detectedBy: .push,
                                detectedAt: T.now, message: nil, base: op.base, client: op.item, server: Self.torn, fields: [],
                                resolved: .null)
        let repair = VersionCheck.check(Self.row, against: T.local(op.item, [op], conflict: conflict))
        #expect(repair.differences.map(\.place) == [.conflictServerCopy])
        let fixed = try #require(repair.conflict)
        #expect(fixed.server == Self.row)
        #expect(fixed.fields == ["note"], "the hidden note clashes with the client's")
    }
}
