import TableProtocol
import TodoModel

/// A validated insert or update body (protocol §4.2, §4.7, §4.9).
struct ItemBody {
    enum Purpose { case insert, update }

    /// The body's id: nil when absent, `null` or `""` (an insert then generates one).
    var id: String?
    /// User columns to set, `null` included (it clears a column).
    var columns: [String: JSONValue]
    /// G2 update only: a `version` member, the expected version when `If-Match` is absent.
    var version: String?

    /// `integerIDs`: the table's ids are integers (`autoIncrement`), so a body's `id` is a JSON
    /// number, kept in its stored form (`IntegerID`).
    static func read(_ bytes: [UInt8], generation: Generation, purpose: Purpose,
                     integerIDs: Bool = false) throws(ServiceError) -> ItemBody {
        guard !bytes.isEmpty else { throw .badRequest("The request body must be a JSON object; it is empty.") }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw .badRequest("The request body is not valid JSON: \(error).") }
        guard case .object(let members) = value else {
            throw .badRequest("The request body must be a JSON object, not \(value.typeName).")
        }
        // Sized up front: grown member by member, the dictionary was rehashed twice per insert.
        var body = ItemBody(id: nil, columns: Dictionary(minimumCapacity: members.count), version: nil)
        for (name, member) in members {
            let lower = UTF8Text.lowercased(name)
            if name == "id" && integerIDs {
                switch member {
                case .null: continue
                case .number(let d):
                    guard let n = IntegerID.parse(d) else {
                        throw .badRequest("The member 'id' must be a whole number from 1 to \(IntegerID.maximum): the table has integer ids (autoIncrement).")
                    }
                    body.id = IntegerID.stored(n)
                default: throw .badRequest("The member 'id' must be a number, not \(member.typeName): the table has integer ids (autoIncrement).")
                }
                continue
            }
            if name == "id" {
                switch member {
                case .null: continue
                case .string(let s) where s.isEmpty: continue
                case .string(let s):
                    if let problem = ItemID.problem(s) { throw .badRequest("Invalid id: \(problem).") }
                    body.id = s
                default: throw .badRequest("The member 'id' must be a string, not \(member.typeName).")
                }
                continue
            }
            if lower == "id" { throw .badRequest("The member '\(name)' is not allowed: the identity may only be given as 'id'.") }
            if name.hasPrefix("__") {
                throw .badRequest(generation == .mobileServices
                    ? "The property '\(name)' is a system property that cannot be set."
                    : "The property '\(name)' is reserved: names starting with '__' cannot be set.")
            }
            if lower.hasPrefix("ms_") { throw .badRequest("The property '\(name)' is reserved: names starting with 'ms_' cannot be set.") }
            if lower == "createdat" || lower == "updatedat" || lower == "deleted" {
                throw .badRequest("The property '\(name)' is a system property that cannot be set.")
            }
            if lower == "version" {
                guard generation == .mobileApps else { throw .badRequest("The property '\(name)' is a system property that cannot be set.") }
                if purpose == .update {
                    guard case .string(let v) = member else { throw .badRequest("The member 'version' must be a string.") }
                    body.version = v
                }
                continue
            }
            guard isIdentifier(name) else {
                throw .badRequest("The property name '\(name)' is invalid: use 1 to 128 letters, digits and '_', starting with a letter or '_'.")
            }
            switch member {
            case .object, .array: throw .badRequest("The property '\(name)' is \(member.typeName); values must be strings, numbers, booleans or null.")
            default: body.columns[name] = member
            }
        }
        return body
    }

    static func isIdentifier(_ name: String) -> Bool { FieldName.isIdentifier(name) }
}

/// The dynamic schema (protocol §4.7.4): the first non-null value fixes a column's type.
enum SchemaCheck {
    /// Protocol §3.3's limit, the default of `--max-columns`.
    static let defaultMaximumColumns = 1024

    static func type(of value: JSONValue) -> ColumnType? {
        switch value {
        case .string: return .string
        case .number: return .number
        case .bool: return .boolean
        default: return nil
        }
    }

    /// Checks `columns` against the table and records new columns and types. `learns`: the table
    /// has a dynamic schema; without one, a column it does not have is a 400.
    static func apply(_ columns: [String: JSONValue], to write: inout TableWrite,
                      maximumColumns: Int, learns: Bool = true) throws(ServiceError) {
        let known = write.schema.columns
        let newNames = columns.keys.filter { known[$0] == nil }
        if !learns, let name = newNames.sorted().first {
            throw .badRequest("The table '\(write.schema.name)' has a fixed schema (dynamicSchema is off) without a column '\(name)': "
                + "nothing was written. Its columns are: \(known.keys.sorted().joined(separator: ", ")). Ask the server's "
                + "operator to declare the column in the table config file.")
        }
        if !newNames.isEmpty && known.count + newNames.count > maximumColumns {
            throw .badRequest("The table '\(write.schema.name)' has \(known.count) columns and this write adds "
                + "\(newNames.count), more than the \(maximumColumns) this server allows in one table (--max-columns): "
                + "nothing was written. Use the existing columns (\(newNames.sorted().prefix(3).joined(separator: ", ")) "
                + "\(newNames.count == 1 ? "is" : "are") new), or ask the server's operator to raise --max-columns.")
        }
        for (name, value) in columns {
            guard let valueType = type(of: value) else {
                if known[name] == nil { write.setColumnType(name, nil) }
                continue
            }
            if let existing = known[name], let columnType = existing {
                if columnType != valueType {
                    throw .badRequest("The property '\(name)' is a \(columnType.rawValue) column; a \(valueType.rawValue) value cannot be stored in it.")
                }
            } else {
                write.setColumnType(name, valueType)
            }
        }
    }
}
