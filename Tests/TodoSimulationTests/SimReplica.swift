import TodoBasics
import TodoModel
import TodoTestSupport

/// One replica of a run: its `todo` command line and read-only views of its `.todo` records.
///
/// Why read the files rather than keep a model of the replica: the simulation must not predict
/// sync's outcome with a second implementation of it. It only chooses commands that make sense
/// for what the replica really holds, and checks what must always be true of those files.
struct SimReplica {
    let name: String
    let cli: CLIHarness

    /// Parsed records under `.todo/<folder>`, in name order.
    func records(_ folder: String) -> [[String: JSONValue]] {
        let fs = LocalFileSystem()
        let dir = cli.directory.appendingPath(".todo").appendingPath(folder)
        return ((try? fs.listDirectory(dir)) ?? []).sorted().filter { !$0.hasPrefix(".") }.compactMap { name in
            (try? fs.readFile(dir.appendingPath(name))).flatMap { $0 }.flatMap { try? JSONValue.parse($0) }?.objectValue
        }
    }

    var items: [[String: JSONValue]] { records("tables/todoitem/items") }
    var operations: [[String: JSONValue]] { records("operations") }
    var conflicts: [[String: JSONValue]] { records("conflicts") }
    var receipts: [[String: JSONValue]] { records("receipts") }

    /// The local item with this id (ignoring case), or nil.
    func item(_ id: String) -> [String: JSONValue]? {
        items.first { ItemID.same($0["id"]?.stringValue ?? "", id) }
    }

    func conflict(_ id: String) -> [String: JSONValue]? {
        conflicts.first { ItemID.same($0["id"]?.stringValue ?? "", id) }
    }

    /// The item's pending operations, in queue order.
    func operations(_ id: String) -> [[String: JSONValue]] {
        operations.filter { ItemID.same($0["id"]?.stringValue ?? "", id) }
    }

    /// Writes `resolved` into the item's conflict file, as a person editing it would (sync.md §8.3.1).
    func writeResolved(_ id: String, _ value: JSONValue) {
        let fs = LocalFileSystem()
        let dir = cli.directory.appendingPath(".todo/conflicts")
        for name in (try? fs.listDirectory(dir)) ?? [] where !name.hasPrefix(".") {
            let path = dir.appendingPath(name)
            guard let bytes = (try? fs.readFile(path)) ?? nil, var record = (try? JSONValue.parse(bytes))?.objectValue,
                  ItemID.same(record["id"]?.stringValue ?? "", id) else { continue }
            record["resolved"] = value
            try? fs.writeFile(path, JSONValue.object(record).canonicalBytes(), sync: false)
        }
    }
}
