import TodoModel
import TodoStore

/// `todo doctor`'s findings in words: what is wrong at a path and, where there is one, what to do.
enum DoctorFindingText {
    /// The sentence shown after "`path`: ".
    static func sentence(_ finding: DoctorFinding, at path: String) -> String {
        switch finding {
        case .symbolicLink:
            return "a symbolic link: todo replaces a file when it writes it, so the link's target would silently stop "
                + "being the store's; put the file itself here"
        case .leftoverTemporaryFile: return "leftover temporary file"
        case .notARecord: return "not a record (an editor's leftover?): todo ignores it"
        case .unexpectedFile: return "unexpected file"
        case .missing: return "missing"
        case .damaged(let reason): return reason
        case .unreadable(let error): return error.message
        case .unfinishedCommit(let notWritable):
            return "a committed change is not written to its files yet\(why(notWritable)); the other checks see the store as it will be once it is, "
                + "and any todo command that can write the folder finishes it"
        case .removalUnfinished(let command, let table, let notWritable):
            return "'todo \(command)' of table \(table) has happened, but its item files are not all removed yet\(why(notWritable)); "
                + "any todo command that can write the folder removes them"
        case .removalListsLeft(let notWritable):
            return "lists of item files left by a purge or table rm that stopped before it happened\(why(notWritable)); "
                + "any todo command that can write the folder deletes them"
        case .formatMissingAfterInterruptedInit:
            return "missing: this looks like an interrupted 'todo init' (nothing was committed here yet); run 'todo init' again"
        case .formatMissing(let holds):
            return "missing: without it this .todo is not a complete replica and no other todo command opens it "
                + "(it holds \(holds)); if the other files are intact, recreate it holding {\"format\": 1}"
        case .remoteUnusable(let remote, let reason):
            return "\"remote\" is \(JSONValue.string(remote).compactText): \(reason); push and pull cannot use it "
                + "(set another with 'todo remote set URL')"
        case .secretReadableByOthers(let what, let mode, let file):
            return "other users can read the \(what) (mode \(String(mode, radix: 8))); run: chmod 600 '\(file)'"
        case .tableNameMismatch(let name, let folder): return "\"name\" is \"\(name)\" but the folder is '\(folder)'"
        case .numberInWrongFile(let number, let belongsIn): return "number \(number) belongs in \(belongsIn)"
        case .nextNumberTaken(let next, let highest): return "\"next\" is \(next) but number \(highest) is given already"
        case .nextNumberMissing(let highest): return "missing, but numbers up to \(highest) are given"
        case .notAnOperationFileName: return "not an operation file name; expected <sequence>.<kind>.<table>.<id>.json"
        case .operationFileMisnamed(let expected):
            return "not named as todo names its operations, so the commands that read the queue refuse it; rename it to \(expected)"
        case .sequenceUsedTwice(let sequence): return "sequence \(sequence) is used twice"
        case .sequenceNotBelowNext(let sequence, let next): return "sequence \(sequence) is not below nextSequence \(next) in state.json"
        case .unknownTable(let table): return "table '\(table)' does not exist in this replica"
        case .insertNotFirst: return "an insert must be the item's first operation"
        case .baseMissing(let kind): return "\(kind == .update ? "an update" : "a delete") needs a base"
        case .operationFollowsDelete: return "an operation follows a delete"
        case .unsealedNotLast: return "an unsealed operation must be the item's last"
        case .deletedButItemFileExists: return "the item is deleted here but its item file exists"
        case .itemDiffersFromItemFile(let itemFile): return "\"item\" differs from the item file \(itemFile)"
        case .itemFileMissing: return "the item file is missing"
        case .conflictNameMismatch(let table, let id): return "the file name does not match table '\(table)' and id \"\(id)\""
        case .conflictOperationNotPending(let sequence): return "its operation #\(sequence) is not pending"
        case .receiptNameMismatch: return "the file name does not match its number, decision, table and id"
        case .receiptNumberNotBelowNext(let number, let next): return "receipt number \(number) is not below nextReceipt \(next) in state.json"
        case .itemNameMismatch(let id): return "the file name does not match the id \"\(id)\""
        case .itemHoldsDeleted: return "an item file never holds ms_deleted"
        case .invalidID(let reason): return "invalid id: \(reason)"
        case .editedByHand(let edit):
            // The warning other commands print starts with the path, which doctor shows before it.
            let what = StoreError.editedByHandMessage(edit)
            let withoutPath = what.hasPrefix(path + " ") ? String(what.dropFirst(path.count + 1)) : what
            return withoutPath + "; " + StoreError.editedByHandHint(edit)
        case .idIndex(let finding, let rebuilt):
            return idIndex(finding) + "; " + (rebuilt ? "rebuilt from the item files"
                                               : "todo lists the items folder instead until it can write it and rebuild this")
        case .pendingIndex(let finding, let rebuilt):
            return pendingIndex(finding) + "; " + (rebuilt ? "rebuilt from the operation files"
                                                   : "todo lists the operations folder instead until it can write it and rebuild this")
        }
    }

    /// Why doctor could not finish it itself, after a colon; nothing when it could write.
    private static func why(_ notWritable: StoreError?) -> String { notWritable.map { ": \($0.message)" } ?? "" }

    private static func idIndex(_ finding: DoctorFinding.IDIndexFinding) -> String {
        switch finding {
        case .directoryDamaged: return "damaged or missing: not {\"buckets\": [\"<name> <first id>\", ...]}"
        case .bucketDamaged: return "damaged: not {\"ids\": [\"<id> <number>\", ...]} in id order"
        case .outsideRange(let key): return "holds \"\(key)\" outside its range"
        case .listsWithoutItemFile(let key): return "the index of ids lists \"\(key)\", which has no item file"
        case .misses(let key): return "the index of ids misses \"\(key)\" (an item file added by hand while todo wrote?)"
        case .wrongNumber(let key, let indexed, let actual):
            return "the index of ids gives \"\(key)\" number \(indexed.map(String.init) ?? "none"), not \(actual.map(String.init) ?? "none")"
        }
    }

    private static func pendingIndex(_ finding: DoctorFinding.PendingIndexFinding) -> String {
        switch finding {
        case .damaged: return "damaged: not {\"operations\": [file names]}"
        case .misses(let file): return "the index of pending operations misses \(file) (added by hand while todo wrote?)"
        case .listsMissing(let file): return "the index of pending operations lists \(file), which is not there"
        }
    }

    /// What the closing hint tells to do about a problem: most files are restored or removed, but
    /// a misnamed operation file is renamed (removing it loses the operation), and some lines
    /// say what to do themselves (or that todo does it).
    enum Remedy: Comparable {
        case rename, restoreOrRemove, asItsLineSays
    }

    static func remedy(_ finding: DoctorFinding) -> Remedy {
        switch finding {
        case .operationFileMisnamed: return .rename
        case .symbolicLink, .unfinishedCommit, .removalUnfinished, .removalListsLeft, .formatMissingAfterInterruptedInit,
             .formatMissing, .remoteUnusable, .secretReadableByOthers, .editedByHand:
            return .asItsLineSays
        default: return .restoreOrRemove
        }
    }

    /// doctor's closing hint for these problems (none: nil), from what they call for.
    static func hint(_ problems: [DoctorReport.Problem]) -> String? {
        let remedies = Set(problems.map { remedy($0.finding) })
        guard !remedies.isEmpty else { return nil }
        let renamed = problems.filter { remedy($0.finding) == .rename }.count
        var parts: [String] = []
        for remedy in remedies.sorted() {
            switch remedy {
            case .rename:
                parts.append(renamed == 1 ? "rename the misnamed operation file as its line says (removing it would lose its operation)"
                                          : "rename the misnamed operation files as their lines say (removing one would lose its operation)")
            case .restoreOrRemove:
                parts.append(remedies.count == 1 ? "restore or remove the files named above" : "restore or remove the other files named above")
            case .asItsLineSays:
                parts.append(remedies.count == 1 ? "do what the lines above say" : "do what the other lines say")
            }
        }
        return parts.joined(separator: "; ") + "; 'todo doctor' again shows what is left"
    }

    /// A report's problems or notes as (path, sentence), sorted by path and then by sentence, as
    /// doctor has always listed them.
    static func lines(_ entries: [DoctorReport.Problem]) -> [(path: String, message: String)] {
        entries.map { ($0.path, sentence($0.finding, at: $0.path)) }.sorted { ($0.path, $0.message) < ($1.path, $1.message) }
    }
}
