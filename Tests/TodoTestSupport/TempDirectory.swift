#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// A fresh folder under /tmp for one test; real files, removed by `remove()`.
public struct TempDirectory: Sendable {
    public let path: String

    public init(_ label: String = "todo-test") {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        let result = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(result != nil, "mkdtemp failed")
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    /// Removes the folder. In-process, not `rm -rf`: forking while another test holds a store lock
    /// would let the child share that lock for a moment.
    public func remove() {
        Self.removeTree(path)
    }

    static func removeTree(_ path: String) {
        let fs = LocalFileSystem()
        if fs.isDirectory(path) {
            for name in (try? fs.listDirectory(path)) ?? [] { removeTree(path.appendingPath(name)) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    public func sub(_ name: String) -> String { path.appendingPath(name) }

    /// Runs a shell command, returning its exit status (for fixtures setup only).
    @discardableResult
    public static func shell(_ command: String) -> Int32 {
        let status = system(command)
        return (status >> 8) & 0xFF
    }
}

/// Where the repository's `Fixtures/` folder is, found from this file's path.
public enum Fixtures {
    public static var root: String {
        let file = #filePath  // …/Tests/TodoTestSupport/TempDirectory.swift
        return file.parentPath.parentPath.parentPath.appendingPath("Fixtures")
    }

    /// Copies `Fixtures/<relative>` into `destination` (tests never write to Fixtures/).
    public static func copy(_ relative: String, to destination: String) {
        let source = root.appendingPath(relative)
        precondition(LocalFileSystem().fileExists(source), "no fixture at \(source)")
        copyTree(source, destination)
    }

    static func copyTree(_ source: String, _ destination: String) {
        let fs = LocalFileSystem()
        try? fs.createDirectory(destination)
        for name in (try? fs.listDirectory(source)) ?? [] {
            let from = source.appendingPath(name), to = destination.appendingPath(name)
            if fs.isDirectory(from) {
                copyTree(from, to)
            } else if let bytes = (try? fs.readFile(from)) ?? nil {
                try? fs.writeFile(to, bytes, sync: false)
            }
        }
    }

    public static func read(_ relative: String) -> String? {
        (try? LocalFileSystem().readFile(root.appendingPath(relative))).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) }
    }
}
