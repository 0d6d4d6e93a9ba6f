import TodoModel

/// Who may do what to a table (issue 17 item 7), as Mobile Services had it: a level per operation,
/// and optionally "owner" mode, in which each user sees and changes only the rows they inserted.
///
/// Levels are ordered: a caller proving a higher level may do what a lower one may (a user's token
/// or the master key also opens what the app key opens).
public enum AccessLevel: String, Sendable, Comparable, CaseIterable {
    /// Anyone, with no credential.
    case `public`
    /// The app key (`X-ZUMO-APPLICATION`).
    case application
    /// A user's token (`X-ZUMO-AUTH`, issued by `todo-server user add`).
    case user
    /// The master key (`X-ZUMO-MASTER`).
    case admin

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (a: AccessLevel, b: AccessLevel) -> Bool { a.rank < b.rank }

    /// What a request must carry to reach this level, for 401 messages.
    var credential: String {
        switch self {
        case .public: "nothing"
        case .application: "the app key (X-ZUMO-APPLICATION)"
        case .user: "a user's token (X-ZUMO-AUTH)"
        case .admin: "the master key (X-ZUMO-MASTER)"
        }
    }
}

/// The operations permissions are given for. A query and a read by id are both `read`.
public enum AccessOperation: String, Sendable, CaseIterable {
    case read, insert, update, delete, undelete

    /// "reading", for messages.
    var gerund: String {
        switch self {
        case .read: "reading"
        case .insert: "inserting into"
        case .update: "updating"
        case .delete: "deleting from"
        case .undelete: "undeleting in"
        }
    }
}

/// One table's permissions.
public struct TableAccess: Sendable, Equatable {
    public var levels: [AccessOperation: AccessLevel]
    /// Owner mode: rows carry the inserting user's name in `userId`; users see only their own.
    public var owner: Bool

    public init(levels: [AccessOperation: AccessLevel], owner: Bool = false) {
        self.levels = levels
        self.owner = owner
    }

    public static func all(_ level: AccessLevel) -> TableAccess {
        TableAccess(levels: Dictionary(uniqueKeysWithValues: AccessOperation.allCases.map { ($0, level) }))
    }

    public func level(_ operation: AccessOperation) -> AccessLevel { levels[operation] ?? .admin }
}

/// Every table's permissions: those the access config names, and the default for the rest.
public struct AccessPolicy: Sendable, Equatable {
    /// Keyed by the lower-cased table name (tables are matched ignoring case).
    public var tables: [String: TableAccess]
    public var fallback: TableAccess

    public init(tables: [String: TableAccess] = [:], fallback: TableAccess) {
        self.tables = Dictionary(uniqueKeysWithValues: tables.map { ($0.key.lowercased(), $0.value) })
        self.fallback = fallback
    }

    /// Today's behaviour, without an access config: the app key for everything when there is one,
    /// else everything public.
    public static func builtIn(hasAppKey: Bool) -> AccessPolicy {
        AccessPolicy(fallback: .all(hasAppKey ? .application : .public))
    }

    public func table(_ name: String) -> TableAccess { tables[UTF8Text.lowercased(name)] ?? fallback }
}

/// Who sent a request, as its credentials prove (`CredentialCheck`).
struct Caller: Equatable {
    var level: AccessLevel
    /// The user's name, when a valid token came with the request.
    var user: String?

    static let anonymous = Caller(level: .public, user: nil)
}

/// The permission decision, pure: may `caller` do `operation` on a table with `access`, and
/// which rows may it see. Refusals are 401, as Mobile Services answered (see the README).
enum AccessDecision: Equatable {
    /// Allowed. `owner`: the only user whose rows the request sees and writes (owner mode, not
    /// admin); nil means every row.
    case allow(owner: String?)
    case refuse(needed: AccessLevel)

    static func decide(_ caller: Caller, _ operation: AccessOperation, _ access: TableAccess) -> AccessDecision {
        let needed = access.level(operation)
        guard caller.level >= needed else { return .refuse(needed: needed) }
        guard access.owner, caller.level < .admin else { return .allow(owner: nil) }
        // An owner table's operations need at least `user` (`AccessConfig` checks it), so a caller
        // who got here without a user is refused rather than shown every row.
        guard let user = caller.user else { return .refuse(needed: .user) }
        return .allow(owner: user)
    }
}
