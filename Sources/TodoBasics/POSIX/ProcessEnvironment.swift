#if canImport(Glibc)
import Glibc
#endif

/// The process environment as a dictionary; only executables call this (libraries take it as input).
public enum ProcessEnvironment {
    public static func current() -> [String: String] {
        var environment: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { environment[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return environment
    }
}
