import TodoBasics

/// Removing a folder todo made itself (a clone taken back). Symbolic links are removed, never
/// followed.
enum FolderRemoval {
    static func removeTree(_ path: String, _ fs: any FileSystem) {
        if fs.isDirectory(path) && !fs.isSymbolicLink(path) {
            for name in (try? fs.listDirectory(path)) ?? [] { removeTree(path.appendingPath(name), fs) }
            try? fs.removeDirectory(path)
        } else {
            try? fs.removeFile(path)
        }
    }
}
