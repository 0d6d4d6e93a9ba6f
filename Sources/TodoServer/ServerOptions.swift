#if canImport(Glibc)
import Glibc
#endif
import PostgresClient
import TodoBasics

/// The parsed command line of `todo-server`.
struct ServerOptions {
    var help = false
    var version = false
    var quiet = false
    var dataDirectory = "todo-server-data"
    /// `--store postgres://…`: the tables live in PostgreSQL (issue 18); nil: in `dataDirectory`.
    var postgres: PostgresConfig?
    var http = HTTPServerConfiguration(port: 8080)
    var service = ServiceConfiguration()
    var limits = StorageLimits()
    /// Said on stderr before the server starts: options that work but expose something.
    var warnings: [String] = []

    struct Problem: Error { var message: String }

    static func parse(_ args: [String], environment: [String: String]) throws(Problem) -> ServerOptions {
        var o = ServerOptions()
        var inlineKey: String?
        var keyFile: String?
        var shortTables: [(name: String, options: TableOptions)]?
        var tableConfigPath: String?
        var masterKeyFile: String?
        var accessConfig: String?
        var i = 0
        func value(_ name: String) throws(Problem) -> String {
            i += 1
            guard i < args.count else { throw Problem(message: "option '\(name)' needs a value") }
            return args[i]
        }
        func number(_ name: String, _ range: ClosedRange<Int>) throws(Problem) -> Int {
            let text = try value(name)
            guard let n = Int(text), range.contains(n) else {
                throw Problem(message: "'\(name) \(text)' must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return n
        }
        func size(_ name: String) throws(Problem) -> Int {
            let text = try value(name)
            guard let bytes = ByteCount.parse(text) else {
                throw Problem(message: "'\(name) \(text)' must be a size in bytes, or with K, M or G (1024-based), e.g. 64K or 1G")
            }
            return bytes
        }
        while i < args.count {
            switch args[i] {
            case "--help", "-h": o.help = true
            case "--version": o.version = true
            case "--quiet": o.quiet = true
            case "--data": o.dataDirectory = try value("--data")
            case "--store":
                let url = try value("--store")
                do { o.postgres = try PostgresConfig.parse(url, environment: environment) } catch {
                    throw Problem(message: "--store: \(error)")
                }
            case "--port": o.http.port = try number("--port", 0...65535)
            case "--host": o.http.host = try value("--host")
            case "--app-key": inlineKey = try value("--app-key")
            case "--app-key-file": keyFile = try value("--app-key-file")
            case "--master-key-file": masterKeyFile = try value("--master-key-file")
            case "--access-config": accessConfig = try value("--access-config")
            case "--tables":
                var entries: [(name: String, options: TableOptions)] = []
                for entry in try value("--tables").split(separator: ",", omittingEmptySubsequences: false) {
                    entries.append(try TableConfigFile.parseShort(String(entry)))
                }
                shortTables = entries
            case "--table-config": tableConfigPath = try value("--table-config")
            case "--dynamic-tables": o.service.dynamicTables = true
            case "--page-size": o.service.pageSize = try number("--page-size", 1...1000)
            case "--max-tables": o.limits.maxTables = try number("--max-tables", 1...1_000_000)
            case "--max-columns": o.service.maxColumns = try number("--max-columns", 1...1024)
            case "--max-rows-per-table": o.limits.maxRowsPerTable = try number("--max-rows-per-table", 1...1_000_000_000)
            case "--max-row-size": o.limits.maxRowBytes = try size("--max-row-size")
            case "--max-memory": o.limits.memoryBudget = try size("--max-memory")
            case "--max-connections": o.http.maxConnections = try number("--max-connections", 1...100_000)
            case "--max-connections-per-address":
                o.http.maxConnectionsPerAddress = try number("--max-connections-per-address", 1...100_000)
            case "--header-timeout": o.http.headerTimeout = .seconds(try number("--header-timeout", 1...3600))
            case "--idle-timeout": o.http.idleTimeout = .seconds(try number("--idle-timeout", 1...3600))
            case "--public-url":
                var url = try value("--public-url")
                while url.hasSuffix("/") { url.removeLast() }
                o.service.publicURL = url
            case "--trusted-proxy":
                let text = try value("--trusted-proxy")
                for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let address = ClientAddress.parse(entry) else {
                        throw Problem(message: "'--trusted-proxy \(text)' must be IPv4 addresses separated by commas, e.g. 127.0.0.1")
                    }
                    o.http.trustedProxies.append(address)
                }
            case "--proxy-protocol": o.http.proxyProtocol = true
            case "--generations":
                let list = try value("--generations").lowercased().split(separator: ",").map(String.init)
                guard !list.isEmpty, list.allSatisfy({ $0 == "g1" || $0 == "g2" }) else {
                    throw Problem(message: "--generations takes g1, g2 or g1,g2")
                }
                o.service.servesMobileServices = list.contains("g1")
                o.service.servesMobileApps = list.contains("g2")
            default: throw Problem(message: "unknown option '\(args[i])'")
            }
            i += 1
        }
        o.service.appKey = try appKey(inline: inlineKey, file: keyFile, environment: environment, warnings: &o.warnings)
        try tableSettings(short: shortTables, file: tableConfigPath, into: &o.service)
        o.service.masterKey = try masterKey(file: masterKeyFile, environment: environment, warnings: &o.warnings)
        if let key = o.service.masterKey, key == o.service.appKey {
            throw Problem(message: "the master key is the app key: every app key holder would be admin; give the master key a value of its own")
        }
        if let accessConfig {
            do {
                o.service.access = try AccessConfig.load(accessConfig, hasAppKey: o.service.appKey != nil,
                                                         hasMasterKey: o.service.masterKey != nil)
            } catch {
                throw Problem(message: error.message)
            }
        }
        return o
    }

    /// The tables to serve and their settings, from `--tables` and `--table-config` (issue 17 item 6):
    /// the tables either names, or `todoitem` when neither is given.
    static func tableSettings(short: [(name: String, options: TableOptions)]?, file: String?,
                              into service: inout ServiceConfiguration) throws(Problem) {
        guard short != nil || file != nil else { return }
        let fromFile = try file.map { path throws(Problem) in try TableConfigFile.read(path) } ?? []
        let merged = try TableConfigFile.merge(short: short ?? [], file: fromFile, path: file)
        service.tables = merged.tables
        service.tableOptions = merged.options
        switch (file, short) {
        case (let path?, nil): service.tableOptionsSource = "the table config file '\(path)'"
        case (let path?, _?): service.tableOptionsSource = "the table config file '\(path)' with --tables"
        default: service.tableOptionsSource = "--tables"
        }
    }

    /// The master key (issue 17 item 7) from `--master-key-file` or `TODO_SERVER_MASTER_KEY`; never
    /// from the command line, which every user of the machine can read.
    static func masterKey(file: String?, environment: [String: String], warnings: inout [String]) throws(Problem) -> String? {
        if let file {
            let key = try AppKeySource.read(file, what: "master key")
            if let mode = AppKeySource.openMode(file) {
                warnings.append("warning: the master key file '\(file)' can be read by other users (mode "
                    + "\(String(mode, radix: 8))); run: chmod 600 '\(file)'")
            }
            return key
        }
        guard let key = environment["TODO_SERVER_MASTER_KEY"] else { return nil }
        guard !key.isEmpty else {
            throw Problem(message: "TODO_SERVER_MASTER_KEY is set but empty: unset it to serve without a master key, or set it to the key")
        }
        return key
    }

    /// The key from `--app-key-file`, `--app-key` or `TODO_SERVER_APP_KEY`, in that order of
    /// preference (issue 17: a command line is visible to every user of the machine, a file of mode
    /// 0600 and the environment are not), with a warning for each way it is exposed.
    static func appKey(inline: String?, file: String?, environment: [String: String],
                       warnings: inout [String]) throws(Problem) -> String? {
        if inline != nil && file != nil {
            throw Problem(message: "give the app key once: --app-key-file FILE or --app-key KEY, not both")
        }
        if let inline {
            warnings.append("warning: --app-key puts the key in the process list, where every user of this machine can "
                + "read it; use --app-key-file FILE (mode 0600) or TODO_SERVER_APP_KEY instead")
            guard !inline.isEmpty else { throw Problem(message: "--app-key is empty: give the key, or leave the option out to serve without one") }
            return inline
        }
        if let file {
            let key = try AppKeySource.read(file)
            if let mode = AppKeySource.openMode(file) {
                warnings.append("warning: the app key file '\(file)' can be read by other users (mode "
                    + "\(String(mode, radix: 8))); run: chmod 600 '\(file)'")
            }
            return key
        }
        guard let key = environment["TODO_SERVER_APP_KEY"] else { return nil }
        guard !key.isEmpty else {
            throw Problem(message: "TODO_SERVER_APP_KEY is set but empty: unset it to serve without a key, or set it to the key")
        }
        return key
    }
}

/// Reads the server's app key (or master key) from a file: its first line.
enum AppKeySource {
    static func read(_ path: String, what: String = "app key") throws(ServerOptions.Problem) -> String {
        let bytes: [UInt8]?
        do { bytes = try LocalFileSystem().readFile(path) } catch {
            throw ServerOptions.Problem(message: "cannot read the \(what) file '\(path)': \(error.reason)")
        }
        guard let bytes else { throw ServerOptions.Problem(message: "the \(what) file '\(path)' does not exist") }
        var line = bytes.prefix { $0 != UInt8(ascii: "\n") }  // by bytes: "\r\n" is one Character
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        guard !line.isEmpty else {
            throw ServerOptions.Problem(message: "the \(what) file '\(path)' is empty: its first line must be the key")
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// The file's permission bits when group or others may read or write it; nil when only its owner may.
    static func openMode(_ path: String) -> UInt32? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let mode = UInt32(st.st_mode) & 0o777
        return mode & 0o077 != 0 ? mode : nil
    }
}
