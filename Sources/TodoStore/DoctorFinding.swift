import TodoModel

/// One thing `todo doctor` found at a path: a value, worded by the command line
/// (`DoctorFindingText`), so the store's checks say what is wrong and the CLI says it to people
/// (issue 16 item 3).
public enum DoctorFinding: Sendable, Equatable {
    // Any file or folder.
    /// A symbolic link where todo keeps a record: a write replaces it, so its target would stop being the store's.
    case symbolicLink
    case leftoverTemporaryFile
    /// A note: an editor's backup or a hidden file beside the records, which todo ignores.
    case notARecord
    case unexpectedFile
    case missing
    /// A record that cannot be parsed: the parser's reason.
    case damaged(reason: String)
    /// A record that cannot be read.
    case unreadable(StoreError)
    /// A journal still on disk after doctor tried to finish it, and why it could not.
    case unfinishedCommit(notWritable: StoreError?)
    /// A purge or table rm (`command`) that has happened, whose item files are not all removed
    /// yet (`ItemRemoval`), and why doctor could not finish it.
    case removalUnfinished(command: String, table: String, notWritable: StoreError?)
    /// Lists of item files left by a purge or table rm that stopped before its commit.
    case removalListsLeft(notWritable: StoreError?)

    // The top of the store.
    /// `format.json` is missing and nothing was ever committed: an interrupted `init`.
    case formatMissingAfterInterruptedInit
    /// `format.json` is missing from a store that holds records (`holds` names them).
    case formatMissing(holds: String)
    /// The config's remote URL, and what is wrong with it (worded by the caller of `Doctor.check`).
    case remoteUnusable(remote: String, reason: String)
    /// A note: a secret file other users can read.
    case secretReadableByOthers(what: String, mode: UInt32, file: String)

    // Tables and numbers.
    case tableNameMismatch(name: String, folder: String)
    case numberInWrongFile(number: Int, belongsIn: String)
    case nextNumberTaken(next: Int, highest: Int)
    case nextNumberMissing(highest: Int)

    // Operations, conflicts, receipts, and the rules that tie them to items (sync.md §2.2.2).
    case notAnOperationFileName
    /// An operation file whose name todo would spell `expected` (renamed by hand): no command reads it.
    case operationFileMisnamed(expected: String)
    case sequenceUsedTwice(Int)
    case sequenceNotBelowNext(sequence: Int, next: Int)
    case unknownTable(String)
    case insertNotFirst
    case baseMissing(PendingOperation.Kind)
    case operationFollowsDelete
    case unsealedNotLast
    case deletedButItemFileExists
    case itemDiffersFromItemFile(itemFile: String)
    case itemFileMissing
    case conflictNameMismatch(table: String, id: String)
    case conflictOperationNotPending(sequence: Int)
    case receiptNameMismatch
    case receiptNumberNotBelowNext(number: Int, next: Int)

    // Item files.
    case itemNameMismatch(id: String)
    case itemHoldsDeleted
    case invalidID(reason: String)
    case editedByHand(HandEdit)

    // Derived data (notes): `rebuilt` when doctor could write the store and rebuilt the index;
    // otherwise todo reads the folders instead until a writer rebuilds it.
    case idIndex(IDIndexFinding, rebuilt: Bool)
    case pendingIndex(PendingIndexFinding, rebuilt: Bool)

    /// What is wrong with the index of ids (`IDIndex`).
    public enum IDIndexFinding: Sendable, Equatable {
        case directoryDamaged
        case bucketDamaged
        case outsideRange(key: String)
        case listsWithoutItemFile(key: String)
        case misses(key: String)
        case wrongNumber(key: String, indexed: Int?, actual: Int?)
    }

    /// What is wrong with the index of pending operations (`PendingIndex`); paths as shown.
    public enum PendingIndexFinding: Sendable, Equatable {
        case damaged
        case misses(operationFile: String)
        case listsMissing(operationFile: String)
    }
}

extension DoctorFinding {
    /// A failed read of a record, as a finding.
    init(_ error: StoreError) {
        if case .corrupt(_, let reason) = error { self = .damaged(reason: reason) } else { self = .unreadable(error) }
    }
}
