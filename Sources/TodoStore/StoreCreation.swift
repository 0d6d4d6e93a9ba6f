import TodoBasics
import TodoModel

/// `todo init`: creates a replica. `format.json` is written last, so a replica whose creation was
/// interrupted is recognisably incomplete and `init` can simply run again.
extension Store {
    public static func create(at root: String, config: ReplicaConfig, fs: any FileSystem) throws(StoreError) {
        let layout = StoreLayout(root: root)
        if fs.fileExists(layout.absolute(StoreLayout.formatFile)) { throw .alreadyInitialized(path: root) }
        do {
            try fs.createDirectory(root)
            for dir in [StoreLayout.operationsDirectory, StoreLayout.conflictsDirectory, StoreLayout.receiptsDirectory,
                        layout.itemsDirectory(config.defaultTable)] {
                try fs.createDirectory(layout.absolute(dir))
            }
            let files: [(String, JSONValue)] = [
                (StoreLayout.configFile, config.json),
                (StoreLayout.stateFile, ReplicaState().json),
                (layout.tableConfig(config.defaultTable), TableConfig(name: config.defaultTable).json),
            ]
            for (path, value) in files {
                try AtomicFile.write(value.canonicalBytes(), to: layout.absolute(path), in: fs)
            }
            for dir in [layout.tableDirectory(config.defaultTable), StoreLayout.tablesDirectory, ""] {
                try fs.syncDirectory(dir.isEmpty ? root : layout.absolute(dir))
            }
            try AtomicFile.write((["format": 1] as JSONValue).canonicalBytes(), to: layout.absolute(StoreLayout.formatFile), in: fs)
            try fs.syncDirectory(root)
            try fs.syncDirectory(root.parentPath)
        } catch {
            throw .io(error)
        }
    }
}
