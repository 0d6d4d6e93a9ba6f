import TodoBasics
import TodoModel

/// `--access-config FILE`: the table permissions, read once at start-up.
///
/// ```json
/// {"default": {"read": "application", "insert": "application"},
///  "tables": {"todoitem": {"read": "user", "insert": "user", "update": "user", "delete": "admin", "owner": true}}}
/// ```
///
/// An operation a table does not name takes the "default" section's level, else today's (the app
/// key when the server has one, else public). In an owner table it is at least `user`, and naming
/// a lower level there is an error: owner mode needs to know whose rows a request may see.
///
/// Kept apart from other per-table settings on purpose: a file of its own, about access only, so
/// an operator can review who may do what in one place.
enum AccessConfig {
    struct Problem: Error, Equatable { var message: String }

    static let operationNames = AccessOperation.allCases.map(\.rawValue).joined(separator: ", ")
    static let levelNames = AccessLevel.allCases.map(\.rawValue).joined(separator: ", ")

    /// Reads and checks the file. `hasAppKey`/`hasMasterKey`: a level needing a key the server was
    /// not given is an error (nobody, or everybody, could do it: the operator meant something else).
    static func load(_ path: String, hasAppKey: Bool, hasMasterKey: Bool) throws(Problem) -> AccessPolicy {
        let bytes: [UInt8]?
        do { bytes = try LocalFileSystem().readFile(path) } catch {
            throw Problem(message: "cannot read the access config '\(path)': \(error.reason)")
        }
        guard let bytes else { throw Problem(message: "the access config '\(path)' does not exist") }
        do {
            return try parse(bytes, hasAppKey: hasAppKey, hasMasterKey: hasMasterKey)
        } catch {
            throw Problem(message: "the access config '\(path)': \(error.message)")
        }
    }

    static func parse(_ bytes: [UInt8], hasAppKey: Bool, hasMasterKey: Bool) throws(Problem) -> AccessPolicy {
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch { throw Problem(message: "not valid JSON: \(error)") }
        guard let top = json.objectValue else { throw Problem(message: "must be a JSON object with \"tables\" and \"default\"") }
        for name in top.keys where name != "tables" && name != "default" {
            throw Problem(message: "unknown member '\(name)'; the members are \"tables\" and \"default\"")
        }
        let builtIn: AccessLevel = hasAppKey ? .application : .public
        func check(_ level: AccessLevel, _ place: String) throws(Problem) {
            if level == .application && !hasAppKey {
                throw Problem(message: "'\(place)' is 'application', but the server has no app key: give --app-key-file FILE "
                    + "(or TODO_SERVER_APP_KEY), or make it 'public'")
            }
            if level == .admin && !hasMasterKey {
                throw Problem(message: "'\(place)' is 'admin', but the server has no master key, so nobody could do it: give "
                    + "--master-key-file FILE (or TODO_SERVER_MASTER_KEY)")
            }
        }
        var defaults: [AccessOperation: AccessLevel] = [:]
        if let section = top["default"] {
            let (levels, owner) = try entry(section, "default")
            if owner != nil { throw Problem(message: "'default.owner': owner mode is set per table, under \"tables\"") }
            for (operation, level) in levels { try check(level, "default.\(operation.rawValue)") }
            defaults = levels
        }
        var fallback = TableAccess(levels: [:])
        for operation in AccessOperation.allCases { fallback.levels[operation] = defaults[operation] ?? builtIn }
        var tables: [String: TableAccess] = [:]
        if let section = top["tables"] {
            guard let members = section.objectValue else { throw Problem(message: "'tables' must be an object of table names") }
            for name in members.keys.sorted() {
                guard ItemBody.isIdentifier(name) else {
                    throw Problem(message: "'tables.\(name)': not a valid table name (letters, digits, '_', starting with a letter or '_')")
                }
                guard tables[name.lowercased()] == nil else {
                    throw Problem(message: "'tables.\(name)': the table is named twice (names are matched ignoring case)")
                }
                let (levels, owner) = try entry(members[name]!, "tables.\(name)")
                var access = TableAccess(levels: [:], owner: owner ?? false)
                for operation in AccessOperation.allCases {
                    let place = "tables.\(name).\(operation.rawValue)"
                    if let level = levels[operation] {
                        try check(level, place)
                        if access.owner && level < .user {
                            throw Problem(message: "'\(place)' is '\(level.rawValue)', but the table has owner mode, which needs "
                                + "to know the user: make it 'user' or 'admin'")
                        }
                        access.levels[operation] = level
                    } else {
                        let inherited = fallback.level(operation)
                        access.levels[operation] = access.owner ? max(inherited, .user) : inherited
                    }
                }
                tables[name.lowercased()] = access
            }
        }
        return AccessPolicy(tables: tables, fallback: fallback)
    }

    /// One section: its levels, and its `owner` flag when given.
    private static func entry(_ value: JSONValue, _ place: String) throws(Problem) -> ([AccessOperation: AccessLevel], Bool?) {
        guard let members = value.objectValue else {
            throw Problem(message: "'\(place)' must be an object such as {\"read\": \"user\", \"owner\": true}")
        }
        var levels: [AccessOperation: AccessLevel] = [:]
        var owner: Bool?
        for name in members.keys.sorted() {
            let member = members[name]!
            if name == "owner" {
                guard let flag = member.boolValue else { throw Problem(message: "'\(place).owner' must be true or false") }
                owner = flag
                continue
            }
            guard let operation = AccessOperation(rawValue: name) else {
                throw Problem(message: "'\(place).\(name)' is not an operation; use \(operationNames), or owner")
            }
            guard let text = member.stringValue, let level = AccessLevel(rawValue: text) else {
                throw Problem(message: "'\(place).\(name)' must be one of \(levelNames), not \(member.compactText)")
            }
            levels[operation] = level
        }
        return (levels, owner)
    }
}
