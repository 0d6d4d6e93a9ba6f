import TodoBasics
import TodoModel

/// Per-table settings as an operator writes them (issue 17 item 6): the JSON file of
/// `--table-config FILE`, and the short form `--tables name:setting:…`.
///
/// The file is one object per table, so more settings fit later (per-table permissions, for one):
///
///     {"tables": {"todoitem": {"softDelete": true, "idType": "string", "dynamicSchema": true},
///                 "counters": {"idType": "autoIncrement", "softDelete": false,
///                              "dynamicSchema": false, "columns": {"name": "string", "count": "number"}}}}
///
/// Unknown keys are errors, not ignored: a misspelt `softdelete` must not leave a table with the
/// default the operator meant to change. Every message names the file, the table and the key.
enum TableConfigFile {
    typealias Problem = ServerOptions.Problem

    static let keys = ["softDelete", "idType", "dynamicSchema", "columns"]

    /// The tables a file names, sorted by name, with their settings.
    static func read(_ path: String) throws(Problem) -> [(name: String, options: TableOptions)] {
        let bytes: [UInt8]?
        do { bytes = try LocalFileSystem().readFile(path) } catch {
            throw Problem(message: "cannot read the table config file '\(path)': \(error.reason)")
        }
        guard let bytes else { throw Problem(message: "the table config file '\(path)' does not exist") }
        return try parse(bytes, path: path)
    }

    static func parse(_ bytes: [UInt8], path: String) throws(Problem) -> [(name: String, options: TableOptions)] {
        let file = "the table config file '\(path)'"
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw Problem(message: "\(file) is not valid JSON: \(error)") }
        let example = #"{"tables": {"todoitem": {"softDelete": true}}}"#
        guard case .object(let top) = value, case .object(let tables)? = top["tables"] else {
            throw Problem(message: "\(file) must be a JSON object with a \"tables\" object, e.g. \(example)")
        }
        for key in top.keys.sorted() where key != "tables" {
            throw Problem(message: "\(file): unknown key \"\(key)\"; the file has one key, \"tables\", e.g. \(example)")
        }
        var seen: [String: String] = [:]
        var result: [(name: String, options: TableOptions)] = []
        for name in tables.keys.sorted() {
            if let problem = TableName.problem(name) { throw Problem(message: "\(file): \(problem)") }
            if let other = seen.updateValue(name, forKey: name.lowercased()) {
                throw Problem(message: "\(file): tables '\(other)' and '\(name)' are one table (table names ignore case); keep one")
            }
            let where_ = "\(file), table '\(name)'"
            guard case .object(let settings)? = tables[name] else {
                throw Problem(message: "\(where_): the settings must be a JSON object, e.g. {\"softDelete\": false}")
            }
            result.append((name, try options(settings, where_)))
        }
        return result
    }

    private static func options(_ settings: [String: JSONValue], _ where_: String) throws(Problem) -> TableOptions {
        var options = TableOptions()
        for key in settings.keys.sorted() {
            let value = settings[key]!
            let at = "\(where_), key \"\(key)\""
            switch key {
            case "softDelete":
                guard case .bool(let b) = value else { throw Problem(message: "\(at): must be true or false, not \(value.compactText)") }
                options.softDelete = b
            case "dynamicSchema":
                guard case .bool(let b) = value else { throw Problem(message: "\(at): must be true or false, not \(value.compactText)") }
                options.dynamicSchema = b
            case "idType":
                guard case .string(let text) = value, let type = TableIDType(rawValue: text) else {
                    throw Problem(message: "\(at): must be \"string\" or \"autoIncrement\", not \(value.compactText)")
                }
                options.idType = type
            case "columns":
                guard case .object(let columns) = value else {
                    throw Problem(message: "\(at): must be an object of column names and types, e.g. {\"text\": \"string\"}")
                }
                for column in columns.keys.sorted() {
                    if let problem = FieldName.problem(column) { throw Problem(message: "\(at): \(problem)") }
                    guard case .string(let text)? = columns[column], let type = ColumnType(rawValue: text) else {
                        throw Problem(message: "\(at): column '\(column)' must be \"string\", \"number\" or \"boolean\", "
                            + "not \(columns[column]!.compactText)")
                    }
                    options.columns[column] = type
                }
            default:
                throw Problem(message: "\(where_): unknown key \"\(key)\"; the keys are \(keys.joined(separator: ", "))")
            }
        }
        return options
    }

    /// One entry of `--tables`: a name, then settings separated by ':' (letter case ignored):
    /// `softDelete`/`hardDelete`, `string`/`autoIncrement`, `dynamicSchema`/`fixedSchema`.
    static func parseShort(_ entry: String) throws(Problem) -> (name: String, options: TableOptions) {
        let parts = entry.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        if let problem = TableName.problem(name) { throw Problem(message: "--tables: \(problem)") }
        var options = TableOptions()
        for setting in parts.dropFirst() {
            func set<T: Equatable>(_ path: WritableKeyPath<TableOptions, T?>, _ value: T) throws(Problem) {
                if let old = options[keyPath: path], old != value {
                    throw Problem(message: "--tables '\(entry)': the settings of '\(name)' contradict each other; give one of each pair")
                }
                options[keyPath: path] = value
            }
            switch setting.lowercased() {
            case "softdelete": try set(\.softDelete, true)
            case "harddelete": try set(\.softDelete, false)
            case "string": try set(\.idType, .string)
            case "autoincrement": try set(\.idType, .autoIncrement)
            case "dynamicschema": try set(\.dynamicSchema, true)
            case "fixedschema": try set(\.dynamicSchema, false)
            default:
                throw Problem(message: "--tables '\(entry)': unknown setting '\(setting)' for table '\(name)'; use "
                    + "softDelete or hardDelete, string or autoIncrement, dynamicSchema or fixedSchema (or --table-config FILE)")
            }
        }
        return (name, options)
    }

    /// The tables of `--tables` and of the file together. A table named in both takes the settings
    /// of both, which must not disagree.
    static func merge(short: [(name: String, options: TableOptions)], file: [(name: String, options: TableOptions)],
                      path: String?) throws(Problem) -> (tables: [String], options: [String: TableOptions]) {
        var tables: [String] = []
        var options: [String: TableOptions] = [:]
        for (name, given) in short + file {
            let key = name.lowercased()
            guard var merged = options[key] else {
                tables.append(name)
                options[key] = given
                continue
            }
            func conflict(_ setting: String) -> Problem {
                Problem(message: "table '\(name)' has two settings for \(setting): one in --tables, another in the table "
                    + "config file '\(path ?? "")'; keep one")
            }
            if let v = given.softDelete { if merged.softDelete.map({ $0 != v }) == true { throw conflict("softDelete") }; merged.softDelete = v }
            if let v = given.idType { if merged.idType.map({ $0 != v }) == true { throw conflict("idType") }; merged.idType = v }
            if let v = given.dynamicSchema {
                if merged.dynamicSchema.map({ $0 != v }) == true { throw conflict("dynamicSchema") }
                merged.dynamicSchema = v
            }
            merged.columns.merge(given.columns) { a, _ in a }
            options[key] = merged
        }
        return (tables, options)
    }
}
