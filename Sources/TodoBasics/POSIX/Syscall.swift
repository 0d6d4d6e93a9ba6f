#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a syscall, retrying on EINTR, and turns -1 into a `FileSystemError` naming the call and path.
@inline(__always)
func syscall<T: BinaryInteger>(_ operation: String, _ path: @autoclosure () -> String, _ body: () -> T) throws(FileSystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw FileSystemError(operation: operation, path: path(), code: code, reason: errnoText(code))
    }
}

/// strerror text for an errno value.
public func errnoText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
}
