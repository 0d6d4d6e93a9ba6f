#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// Where a password comes from: `PGPASSWORD`, else a password file in libpq's `.pgpass` format.
/// Never from the connection string or the command line.
enum PasswordSource {
    static func password(for config: PostgresConfig, passfile: String?, environment: [String: String]) throws(PostgresError) -> String? {
        if let password = environment["PGPASSWORD"], !password.isEmpty { return password }
        let explicit = passfile ?? environment["PGPASSFILE"]
        guard let path = explicit ?? environment["HOME"].map({ "\($0)/.pgpass" }) else { return nil }
        guard let text = readFile(path) else {
            if explicit != nil {
                throw .invalidConfiguration("cannot read the password file \(path): \(errnoText(errno))")
            }
            return nil
        }
        return match(text, config: config)
    }

    /// The password of the first line whose host, port, database and user match (`*` matches anything;
    /// `\:` and `\\` escape).
    static func match(_ text: String, config: PostgresConfig) -> String? {
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) where !line.hasPrefix("#") {
            let fields = splitFields(line)
            guard fields.count == 5 else { continue }
            func matches(_ field: String, _ values: [String]) -> Bool { field == "*" || values.contains(field) }
            if matches(fields[0], config.endpoint.passwordFileHost), matches(fields[1], [String(config.endpoint.port)]),
               matches(fields[2], [config.database]), matches(fields[3], [config.user]) {
                return fields[4]
            }
        }
        return nil
    }

    private static func splitFields(_ line: Substring) -> [String] {
        var fields: [String] = [], current = "", escaped = false
        for character in line {
            if escaped { current.append(character); escaped = false }
            else if character == "\\" { escaped = true }
            else if character == ":" && fields.count < 4 { fields.append(current); current = "" }
            else { current.append(character) }
        }
        fields.append(current)
        return fields
    }

    private static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
