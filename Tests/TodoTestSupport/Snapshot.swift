import TodoBasics

/// Golden files under `Fixtures/Output/`. `TODO_RECORD_SNAPSHOTS=1` re-records them; a freshly
/// recorded snapshot still fails the test, so a recording is never mistaken for a pass.
public enum Snapshot {
    /// Returns nil when `actual` matches the golden file, else a message for the failure.
    public static func check(_ actual: String, named name: String, environment: [String: String]) -> String? {
        let relative = "Output/\(name).txt"
        let path = Fixtures.root.appendingPath(relative)
        if environment["TODO_RECORD_SNAPSHOTS"] == "1" {
            let fs = LocalFileSystem()
            try? fs.createDirectory(path.parentPath)
            try? fs.writeFile(path, Array(actual.utf8), sync: false)
            return "recorded \(relative); run the tests again without TODO_RECORD_SNAPSHOTS"
        }
        guard let expected = Fixtures.read(relative) else {
            return "no golden file \(relative); record it with TODO_RECORD_SNAPSHOTS=1"
        }
        return expected == actual ? nil : "output differs from \(relative):\n--- expected\n\(expected)\n--- actual\n\(actual)"
    }
}
