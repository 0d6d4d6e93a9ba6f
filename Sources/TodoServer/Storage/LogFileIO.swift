import Glibc

/// The two system calls through which a table log's records reach the disk: `pwrite` of a record
/// and `fdatasync` of the file.
///
/// Why a seam: what the server does when the disk refuses (EIO from `fdatasync`, issue 17) must be
/// tested against the real storage and the real service, and a real disk cannot be made to fail on
/// cue. Tests install an implementation that fails the n-th call; the server uses `SystemLogFileIO`.
/// Everything else (open, rename, truncate) calls the system directly: its failures are already
/// reported at once and leave nothing in doubt.
///
/// Both follow the system calls' convention: -1 with `errno` set on failure.
protocol LogFileIO: Sendable {
    func pwrite(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int
    func fdatasync(_ fd: Int32) -> Int32
}

/// The real system calls.
struct SystemLogFileIO: LogFileIO {
    func pwrite(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int {
        Glibc.pwrite(fd, bytes.baseAddress, bytes.count, off_t(offset))
    }

    func fdatasync(_ fd: Int32) -> Int32 { Glibc.fdatasync(fd) }
}
