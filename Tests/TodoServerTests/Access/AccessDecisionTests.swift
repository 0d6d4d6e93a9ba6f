import Testing
import TodoBasics
import TodoTestSupport
@testable import TodoServer

/// Issue 17 item 7: the permission decision, one row a case: who calls, which operation, which
/// table settings, and what is decided (allowed, seeing whose rows; or refused, needing what).
@Suite struct AccessDecisionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var caller: Caller
        var operation: AccessOperation
        var access: TableAccess
        var expected: AccessDecision
        var testDescription: String { "\(caller.level.rawValue)\(caller.user.map { "(\($0))" } ?? "") \(operation.rawValue) → \(expected)" }
    }

    static let alice = Caller(level: .user, user: "alice")
    static let appKey = Caller(level: .application, user: nil)
    static let master = Caller(level: .admin, user: nil)
    static let masterAndUser = Caller(level: .admin, user: "alice")
    static let owned = TableAccess(levels: [.read: .user, .insert: .user, .update: .user, .delete: .admin, .undelete: .user], owner: true)
    static let mixed = TableAccess(levels: [.read: .public, .insert: .application, .update: .user, .delete: .admin, .undelete: .admin])

    static let cases: [Case] = [
        // Today's defaults: everything public without an app key, everything the app key's with one.
        Case(caller: .anonymous, operation: .read, access: .all(.public), expected: .allow(owner: nil)),
        Case(caller: .anonymous, operation: .delete, access: .all(.public), expected: .allow(owner: nil)),
        Case(caller: .anonymous, operation: .read, access: .all(.application), expected: .refuse(needed: .application)),
        Case(caller: appKey, operation: .insert, access: .all(.application), expected: .allow(owner: nil)),
        // Higher levels open what lower ones open.
        Case(caller: alice, operation: .update, access: .all(.application), expected: .allow(owner: nil)),
        Case(caller: master, operation: .undelete, access: .all(.user), expected: .allow(owner: nil)),
        // A level per operation.
        Case(caller: .anonymous, operation: .read, access: mixed, expected: .allow(owner: nil)),
        Case(caller: .anonymous, operation: .insert, access: mixed, expected: .refuse(needed: .application)),
        Case(caller: appKey, operation: .insert, access: mixed, expected: .allow(owner: nil)),
        Case(caller: appKey, operation: .update, access: mixed, expected: .refuse(needed: .user)),
        Case(caller: alice, operation: .update, access: mixed, expected: .allow(owner: nil)),
        Case(caller: alice, operation: .delete, access: mixed, expected: .refuse(needed: .admin)),
        Case(caller: master, operation: .delete, access: mixed, expected: .allow(owner: nil)),
        // Owner mode: a user sees their own rows; admin every row; nobody else gets in.
        Case(caller: alice, operation: .read, access: owned, expected: .allow(owner: "alice")),
        Case(caller: alice, operation: .insert, access: owned, expected: .allow(owner: "alice")),
        Case(caller: alice, operation: .delete, access: owned, expected: .refuse(needed: .admin)),
        Case(caller: appKey, operation: .read, access: owned, expected: .refuse(needed: .user)),
        Case(caller: .anonymous, operation: .update, access: owned, expected: .refuse(needed: .user)),
        Case(caller: master, operation: .read, access: owned, expected: .allow(owner: nil)),
        Case(caller: masterAndUser, operation: .read, access: owned, expected: .allow(owner: nil)),
        Case(caller: master, operation: .delete, access: owned, expected: .allow(owner: nil)),
        // An owner table opened below `user` (the config refuses it; the decision still never shows every row).
        Case(caller: appKey, operation: .read, access: TableAccess(levels: [.read: .application], owner: true),
             expected: .refuse(needed: .user)),
    ]

    @Test(arguments: cases) func decision(_ c: Case) {
        #expect(AccessDecision.decide(c.caller, c.operation, c.access) == c.expected)
    }

    @Test func levelsAreOrdered() {
        #expect(AccessLevel.allCases == [.public, .application, .user, .admin])
        #expect(AccessLevel.public < .application && .application < .user && .user < .admin)
    }
}

/// `--access-config FILE`: what it resolves to, and each mistake's message.
@Suite struct AccessConfigTests {
    static func parse(_ text: String, appKey: Bool = true, masterKey: Bool = true) -> Result<AccessPolicy, AccessConfig.Problem> {
        Result { () throws(AccessConfig.Problem) in try AccessConfig.parse(Array(text.utf8), hasAppKey: appKey, hasMasterKey: masterKey) }
    }

    static func problem(_ text: String, appKey: Bool = true, masterKey: Bool = true) -> String? {
        if case .failure(let p) = parse(text, appKey: appKey, masterKey: masterKey) { return p.message }
        return nil
    }

    @Test func withoutAConfigTodaysRuleHolds() {
        #expect(AccessPolicy.builtIn(hasAppKey: true).table("todoitem") == .all(.application))
        #expect(AccessPolicy.builtIn(hasAppKey: false).table("anything") == .all(.public))
    }

    @Test func tablesDefaultsAndOwnerResolve() throws {
        let policy = try Self.parse("""
            {"default": {"read": "public"},
             "tables": {"TodoItem": {"read": "user", "insert": "user", "update": "user", "delete": "admin", "owner": true},
                        "notes": {"delete": "admin"}}}
            """).get()
        // Named operations as given; an owner table's others at least `user` (undelete here).
        #expect(policy.table("todoitem") == TableAccess(
            levels: [.read: .user, .insert: .user, .update: .user, .delete: .admin, .undelete: .user], owner: true))
        #expect(policy.table("TODOITEM").owner, "tables are matched ignoring case")
        // Others from "default", then today's rule (the app key here).
        #expect(policy.table("notes") == TableAccess(
            levels: [.read: .public, .insert: .application, .update: .application, .delete: .admin, .undelete: .application]))
        #expect(policy.table("other") == TableAccess(
            levels: [.read: .public, .insert: .application, .update: .application, .delete: .application, .undelete: .application]))
        let noKey = try Self.parse(#"{"tables": {"t": {"delete": "admin"}}}"#, appKey: false).get()
        #expect(noKey.table("t").level(.read) == .public && noKey.table("t").level(.delete) == .admin)
    }

    @Test(arguments: [
        ("[1]", "must be a JSON object with \"tables\" and \"default\""),
        (#"{"table": {}}"#, "unknown member 'table'; the members are \"tables\" and \"default\""),
        (#"{"tables": []}"#, "'tables' must be an object of table names"),
        (#"{"tables": {"a b": {}}}"#, "'tables.a b': not a valid table name (letters, digits, '_', starting with a letter or '_')"),
        (#"{"tables": {"t": {}, "T": {}}}"#, "'tables.t': the table is named twice (names are matched ignoring case)"),
        (#"{"tables": {"t": "user"}}"#, "'tables.t' must be an object such as {\"read\": \"user\", \"owner\": true}"),
        (#"{"tables": {"t": {"raed": "user"}}}"#, "'tables.t.raed' is not an operation; use read, insert, update, delete, undelete, or owner"),
        (#"{"tables": {"t": {"read": "users"}}}"#, "'tables.t.read' must be one of public, application, user, admin, not \"users\""),
        (#"{"tables": {"t": {"owner": "yes"}}}"#, "'tables.t.owner' must be true or false"),
        (#"{"tables": {"t": {"owner": true, "read": "application"}}}"#,
         "'tables.t.read' is 'application', but the table has owner mode, which needs to know the user: make it 'user' or 'admin'"),
        (#"{"default": {"owner": true}}"#, "'default.owner': owner mode is set per table, under \"tables\""),
    ])
    func mistakes(_ text: String, _ message: String) {
        #expect(Self.problem(text) == message)
    }

    @Test func levelsNeedingAKeyTheServerLacks() {
        #expect(Self.problem(#"{"default": {"read": "application"}}"#, appKey: false)
            == "'default.read' is 'application', but the server has no app key: give --app-key-file FILE (or TODO_SERVER_APP_KEY), or make it 'public'")
        #expect(Self.problem(#"{"tables": {"t": {"delete": "admin"}}}"#, masterKey: false)
            == "'tables.t.delete' is 'admin', but the server has no master key, so nobody could do it: give --master-key-file FILE (or TODO_SERVER_MASTER_KEY)")
    }

    @Test func badJSONNamesTheFile() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let path = dir.sub("access.json")
        try LocalFileSystem().writeFile(path, Array("{".utf8), sync: false)
        let message = Result { () throws(AccessConfig.Problem) in try AccessConfig.load(path, hasAppKey: true, hasMasterKey: true) }
        guard case .failure(let problem) = message else { Issue.record("loaded"); return }
        #expect(problem.message.hasPrefix("the access config '\(path)': not valid JSON"))
        let missing = Result { () throws(AccessConfig.Problem) in try AccessConfig.load(dir.sub("nope"), hasAppKey: true, hasMasterKey: true) }
        guard case .failure(let absent) = missing else { Issue.record("loaded"); return }
        #expect(absent.message == "the access config '\(dir.sub("nope"))' does not exist")
    }
}
