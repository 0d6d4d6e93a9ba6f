/// Crash-safe replacement of one file: write a temp file beside it, fsync, rename over the target.
///
/// A reader sees the old file or the new one, never a torn one. The caller fsyncs the directory
/// (once per directory per commit) to make the rename itself durable. The temp name is fixed
/// (`.<name>.tmp`) because writers hold the store lock, and a fixed name lets recovery find and
/// delete leftovers without scanning large directories.
public enum AtomicFile {
    public static func tempPath(for path: String) -> String {
        path.parentPath.appendingPath("." + path.lastPathComponent + ".tmp")
    }

    /// `sync: false` keeps the replacement atomic for readers but not durable: for a file a
    /// journal still holds until a later syncfs (`Recovery`), or a derived one whose loss in a
    /// crash only makes it stale (the indexes' stamps).
    public static func write(_ bytes: [UInt8], to path: String, in fs: any FileSystem, sync: Bool = true) throws(FileSystemError) {
        let temp = tempPath(for: path)
        try fs.writeFile(temp, bytes, sync: sync)
        try fs.rename(temp, to: path)
    }
}
