import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 item 3: `todo` links the Swift runtime in (`-static-stdlib`, Package.swift). Loading
/// and relocating libswiftCore, libswift_Concurrency, Dispatch and the rest cost about 3 ms of
/// every command's 10 ms budget; this fails if the link setting is lost. Checked on the built
/// binary's dynamic section, not by timing.
@Suite struct StaticRuntimeTests {
    static let build = Fixtures.root.parentPath.appendingPath(".build/debug")

    @Test func todoNeedsNoSwiftRuntimeLibrary() throws {
        let needed = try #require(SharedLibraries.needed(by: Self.build.appendingPath("todo")), "build the todo binary first (swift build)")
        #expect(needed.contains { $0.hasPrefix("libc.so") }, "libc stays shared (host names, dlopen of OpenSSL): \(needed)")
        let swift = needed.filter { $0.hasPrefix("libswift") || $0.hasPrefix("libdispatch") || $0.hasPrefix("libBlocksRuntime") || $0.hasPrefix("libFoundation") }
        #expect(swift.isEmpty, "todo loads \(swift) at every start")
    }

    /// The reader itself: the server, which keeps the shared runtime, names libswiftCore.
    @Test func theServerStillNamesTheSharedRuntime() throws {
        let needed = try #require(SharedLibraries.needed(by: Self.build.appendingPath("todo-server")), "build todo-server first (swift build)")
        #expect(needed.contains("libswiftCore.so"), "\(needed)")
    }

    @Test func aFileThatIsNotELFHasNoAnswer() {
        let dir = TempDirectory()
        defer { dir.remove() }
        try? LocalFileSystem().writeFile(dir.sub("script"), Array("#!/bin/sh\necho hello, this is not an ELF file at all, but long enough to look at\n".utf8), sync: false)
        #expect(SharedLibraries.needed(by: dir.sub("script")) == nil)
        #expect(SharedLibraries.needed(by: dir.sub("missing")) == nil)
    }
}
