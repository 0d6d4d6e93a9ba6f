import FuzzDriver
import TodoModel
@testable import TodoStore

/// Contract of the commit journal's parser (`Recovery.parseJournal`, run by every writer that finds
/// a journal): any bytes give the staged writes or a clean error, and no staged path ever leaves
/// the store (absolute, `..`, `.`, empty segments or NUL).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(start, count)
    guard let value = try? JSONValue.parse(bytes) else { return 0 }
    do {
        let staged = try Recovery.parseJournal(value)
        for path in staged.keys {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            if path.hasPrefix("/") || segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
                || path.utf8.contains(0) {
                violation("unsafe path accepted: \(path.debugDescription)", bytes)
            }
        }
    } catch {
        if error.message.isEmpty { violation("journal error with an empty message", bytes) }
    }
    return 0
}

@_cdecl("FuzzJournal_main")
public func fuzzJournalMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { fuzzJournal($0, $1) }
}
