import TodoModel

/// Owner mode (issue 17 item 7), as Mobile Services' per-user tables had it: each row carries its
/// owner's user name in `userId`, which the server sets on insert; a user's requests see, change
/// and count only their own rows, and other users' rows behave as if they did not exist (404,
/// absent from queries). Admin (the master key) sees every row and may set `userId`.
struct RowOwnership {
    static let column = "userId"

    /// The table has owner mode.
    var ownerMode: Bool
    /// The user whose rows alone the request sees; nil: every row (admin, or no owner mode).
    var owner: String?

    static let everyRow = RowOwnership(ownerMode: false, owner: nil)

    func sees(_ row: StoredRow) -> Bool {
        guard let owner else { return true }
        return row.columns[Self.column] == .string(owner)
    }

    /// The body's columns as they are written. In owner mode, `userId` in another spelling is
    /// refused (it would be a second column clients could mistake for the owner); a user may send
    /// `userId` only with their own name (so a client can send back the row it read), and an
    /// insert gets it set. Admin sets it freely.
    func columns(_ body: [String: JSONValue], table: String, inserting: Bool) throws(ServiceError) -> [String: JSONValue] {
        guard ownerMode else { return body }
        for name in body.keys where name != Self.column && name.lowercased() == Self.column.lowercased() {
            throw .badRequest("The property '\(name)' is not allowed in the table '\(table)': it keeps each row's owner "
                + "in '\(Self.column)', which the server sets.")
        }
        guard let owner else { return body }
        if let given = body[Self.column], given != .string(owner) {
            throw .badRequest("The property '\(Self.column)' of the table '\(table)' holds the row's owner, which the server "
                + "sets to the user of the token: leave it out (or send \(JSONValue.string(owner).compactText)).")
        }
        var columns = body
        if inserting { columns[Self.column] = .string(owner) }
        return columns
    }
}
