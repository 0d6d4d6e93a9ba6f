import Testing
@testable import TodoServer

/// The fsync fault seam (`FsyncFault`) leaves the table log's descriptor to the storage, which
/// closes it exactly once.
///
/// Why: it used to return the descriptor "for the test to close", and three tests closed it in a
/// `defer` that ran before their `storage.close()`, which closed the same number again. All test
/// targets share one process, run in parallel: by then the number can be another test's socket
/// (the fault campaign's server, proxy or client), closed under its owner and reused, so bytes
/// reach the wrong connection.
@Suite struct FsyncFaultTests {
    @Test("after an fsync fault the log keeps its descriptor, and closing the storage closes it")
    func theStorageClosesTheLogsDescriptor() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        try storage.createTable("t", softDelete: true)
        try storage.putTestRow("t", "durable")
        FsyncFault.inject(storage, "t")
        #expect(storageError { try storage.putTestRow("t", "lost") } == .unavailable, "the fsync failed")
        #expect(StorageDescriptorTests.openLogs(under: dir.data) == 1, "appends still go to the log's own descriptor")
        storage.close()
        #expect(StorageDescriptorTests.openLogs(under: dir.data) == 0, "closed by the storage: a test has none left to close")
    }
}
