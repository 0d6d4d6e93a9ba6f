import Testing
@testable import TodoCLI
import TodoModel
import TodoSync

/// Each reason a push, pull or check stops, as the sentence the user reads (`SyncStopText`), one
/// row a reason. The sync library returns the reason; these sentences are the interface.
@Suite struct SyncStopTextTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var reason: SyncStop.Reason
        var sentence: String
        var testDescription: String { sentence }
        init(_ reason: SyncStop.Reason, _ sentence: String) {
            self.reason = reason
            self.sentence = sentence
        }
    }

    static let remote = RemoteEndpoint(scheme: .https, host: "todo.example", port: 8443, basePath: "/api")
    static let checkURL = "check the URL (it should be the table server's base URL, e.g. https://todo.example:8080)"

    static let rows: [Row] = [
        Row(.refused(status: 401, serverMessage: "The token expired."),
            "the server refused the token/key (401): The token expired; "
                + "check 'todo remote set --token-file FILE' (a user's token) or '--app-key-file FILE' (the app key)"),
        Row(.refused(status: 403, serverMessage: nil),
            "the server refused the token/key (403); "
                + "check 'todo remote set --token-file FILE' (a user's token) or '--app-key-file FILE' (the app key)"),
        Row(.serverTrouble(status: 503, serverMessage: "The storage is unavailable."),
            "after 3 attempts the server still answered 503: The storage is unavailable; try again later"),
        Row(.serverTrouble(status: 502, serverMessage: nil), "after 3 attempts the server still answered 502; try again later"),
        Row(.requestTimedOut, "the server timed out the request (408) 3 times"),
        Row(.network(.cannotConnect(endpoint: "127.0.0.1:9", reason: "Connection refused")),
            "cannot connect to 127.0.0.1:9: Connection refused"),
        Row(.unexpectedLookupAnswer(status: 418, table: "todoitem", id: "a1", serverMessage: "teapot."),
            "unexpected answer 418 to the query for todoitem/a1: teapot."),
        Row(.unexpectedLookupAnswer(status: 418, table: "todoitem", id: "a1", serverMessage: nil),
            "unexpected answer 418 to the query for todoitem/a1"),
        Row(.methodNotAllowed(method: "PATCH", table: "todoitem"), "the server does not allow PATCH on table 'todoitem' (405)"),
        Row(.noTable("notes"), "the server has no table 'notes'"),
        Row(.integerIDs(table: "orders", status: 201),
            "table 'orders' uses integer ids (autoIncrement); todo syncs only tables with string ids"),
        Row(.undeleteUnread(id: "a1"),
            "the undelete of a1 succeeded but the server copy could not be read; run 'todo push' again"),
        Row(.idFilterIgnored(table: "todoitem", id: "a1", status: 200),
            "the server ignored $filter=id eq 'a1' (it answered rows of other ids), so the server copy of todoitem/a1 cannot be "
                + "known; the operation stays queued. Check the remote URL, or a proxy in between"),
        Row(.notPaging(.samePageAgain, read: .pull(table: "todoitem", queryID: "q"), rows: 120),
            "the server does not page as asked: it answered the same page again (it ignores $skip). query 'q' of todoitem "
                + "stopped after 120 rows, which are kept; check the remote URL, or a proxy in between"),
        Row(.notPaging(.outOfOrder, read: .pull(table: "todoitem", queryID: nil), rows: 0),
            "the server does not page as asked: its rows are not in updatedAt order (it ignores $orderby), so paging by $skip "
                + "would miss rows. the pull of todoitem stopped after 0 rows, which are kept; check the remote URL, or a proxy in between"),
        Row(.notPaging(.beforeTheBound, read: .check(table: "todoitem"), rows: 50),
            "the server does not page as asked: it answered rows before the requested updatedAt (it ignores $filter); "
                + "the check of todoitem stopped after 50 rows"),
        Row(.notPaging(.nothingNew(rows: 300), read: .check(table: "todoitem"), rows: 250),
            "the server does not page as asked: its last 300 rows were all rows this pull already had (it ignores $filter or $skip); "
                + "the check of todoitem stopped after 250 rows"),
        Row(.wrongURL(.otherJSON(status: 200), remote: remote),
            "https://todo.example:8443/api answered 200 with JSON that is not a list of rows, not the table protocol: \(checkURL)"),
        Row(.wrongURL(.redirectNowhere(status: 302), remote: remote),
            "https://todo.example:8443/api answered a redirect (302) without saying where to: \(checkURL)"),
        Row(.wrongURL(.redirect(status: 301, location: "https://other.example/api/tables/todoitem", remoteURL: "https://other.example/api"),
                      remote: remote),
            "https://todo.example:8443/api redirects to https://other.example/api/tables/todoitem: "
                + "set that URL with 'todo remote set https://other.example/api'"),
        Row(.wrongURL(.webPage(status: 404, mediaType: "text/html"), remote: remote),
            "https://todo.example:8443/api answered with a web page (text/html, status 404), not the table protocol: \(checkURL)"),
        Row(.wrongURL(.webPage(status: 200, mediaType: "application/xhtml+xml"), remote: nil),
            "the remote answered with a web page (application/xhtml+xml, status 200), not the table protocol: "
                + "check the URL (it should be the table server's base URL, e.g. http://host:8080)"),
    ]

    @Test("each stop's sentence", arguments: rows) func sentence(_ row: Row) {
        #expect(SyncStopText.sentence(SyncStop(row.reason)) == row.sentence)
    }

    @Test("--json's stop: its kind, status and sentence") func json() {
        let stop = SyncStop(.methodNotAllowed(method: "DELETE", table: "todoitem"))
        #expect(SyncRenderer.stopJSON(stop) == ["kind": "config", "status": 405,
                                                "message": "the server does not allow DELETE on table 'todoitem' (405)"])
        #expect(SyncRenderer.stopJSON(SyncStop(.undeleteUnread(id: "a1")))
                == ["kind": "server", "status": .null,
                    "message": "the undelete of a1 succeeded but the server copy could not be read; run 'todo push' again"])
    }
}

/// What a pull tells besides its counts (`PullNoticeText`), one row a case: refusals, notes, warnings.
@Suite struct PullNoticeTextTests {
    static let refusals: [(QueryRefusal, String)] = [
        (.noTable("notes"), "the server has no table 'notes'"),
        (.rejected(status: 400, serverMessage: "bad filter"), "the server rejected the query (400): bad filter"),
        (.rejected(status: 422, serverMessage: nil), "the server rejected the query (422)"),
        (.integerIDs(table: "orders"), "table 'orders' uses integer ids (autoIncrement); todo syncs only tables with string ids"),
    ]

    @Test("each refusal's sentence", arguments: refusals) func refusal(_ refusal: QueryRefusal, _ sentence: String) {
        #expect(PullNoticeText.refusal(refusal) == sentence)
    }

    static let notes: [(PullNote, String)] = [
        (.filterChanged(queryID: "open"), "the filter of query 'open' changed; pulling it from the beginning"),
        (.cannotPageByID, "the server cannot page by (updatedAt, id); using updatedAt and $skip"),
        (.rowsOutOfOrder, "the server returned rows out of (updatedAt, id) order; using updatedAt and $skip"),
        (.deletesForGood(table: "todoitem"),
         "the server deletes rows of 'todoitem' for good (hard delete): rows that other replicas delete there stay in this "
            + "replica, since pulls never show them; 'todo purge --table todoitem' then 'todo pull' drops them"),
        (.deletesKept(table: "todoitem"), "the server now keeps the deleted rows of 'todoitem' (soft delete): pulls show deletions again"),
    ]

    @Test("each note's sentence", arguments: notes) func note(_ note: PullNote, _ sentence: String) {
        #expect(PullNoticeText.note(note) == sentence)
    }

    static let remote = RemoteEndpoint(scheme: .http, host: "127.0.0.1", port: 8080)
    static let warnings: [(PullWarning, String)] = [
        (.rowWithoutID(row: #"{"text":"x"}"#), #"skipped a row without a valid id: {"text":"x"}"#),
        (.memberIgnored(name: "$odd"), "ignored member '$odd' (not a user field name)"),
        (.idsDifferInCase(table: "todoitem", first: "Ab", second: "aB"),
         "the server has rows 'Ab' and 'aB' in todoitem, ids that differ only in case; the replica keeps one item, the last one pulled"),
        (.cannotListTables(.status(404), remote: remote),
         "http://127.0.0.1:8080 cannot list its tables (GET /tables answered 404): it is not a todo-server, or an older one; "
            + "name each table you want: 'todo pull --table NAME'"),
        (.cannotListTables(.notAList, remote: nil),
         "the remote answered the list of tables with something else than a list, so it cannot list its tables; "
            + "name each table you want: 'todo pull --table NAME'"),
    ]

    @Test("each warning's sentence", arguments: warnings) func warning(_ warning: PullWarning, _ sentence: String) {
        #expect(PullNoticeText.warning(warning) == sentence)
    }
}

/// A push's per-op result as its line shows it (`SyncRenderer.describe`), one row a form.
@Suite struct PushLineTextTests {
    static let rows: [(PushReport.Line.Result, String)] = [
        (.conflict(status: 412, kind: .changedOnBothSides, fields: ["text"]), "conflict (412): text changed on both sides"),
        (.conflict(status: 409, kind: .addedOnBothSides, fields: ["text", "due"]), "conflict (409): added on both sides (text, due differ)"),
        (.conflict(status: 409, kind: .addedOnBothSides, fields: ["text"]), "conflict (409): added on both sides (text differs)"),
        (.conflict(status: nil, kind: .changedHereDeletedThere, fields: []), "conflict (-): changed here, deleted there"),
        (.rejected(status: 400, message: nil), "rejected (400): no message"),
        (.replayed("already applied"), "ok (replayed: already applied)"),
    ]

    @Test("each result's words", arguments: rows) func line(_ result: PushReport.Line.Result, _ text: String) {
        #expect(SyncRenderer.describe(result) == text)
    }
}

/// The name of each kind of conflict, as status, diff, show and resolve show it (sync.md §7.3).
@Suite struct ConflictKindTextTests {
    static let rows: [(Conflict.Kind, String)] = [
        (.addedOnBothSides, "added on both sides"),
        (.addedHereDeletedThere, "added here, deleted there"),
        (.changedOnBothSides, "changed on both sides"),
        (.changedHereDeletedThere, "changed here, deleted there"),
        (.deletedHereChangedThere, "deleted here, changed there"),
        (.rejected(status: 400, message: "text is required"), "rejected by the server (400: text is required)"),
        (.rejected(status: nil, message: nil), "rejected by the server (no status: no message)"),
    ]

    @Test("each kind's name", arguments: rows) func name(_ kind: Conflict.Kind, _ text: String) {
        #expect(kind.text == text)
    }
}

/// Why a request got no answer, as the line the user reads (`TransportFailureText`), one row a
/// failure and a TLS trouble.
@Suite struct TransportFailureTextTests {
    static let rows: [(TransportFailure, String)] = [
        (.cannotResolve(host: "nowhere.example", reason: "Name or service not known"),
         "cannot resolve host 'nowhere.example': Name or service not known"),
        (.cannotConnect(endpoint: "127.0.0.1:9", reason: "Connection refused"), "cannot connect to 127.0.0.1:9: Connection refused"),
        (.timedOut(seconds: 30, requestSent: true), "no response within 30 s"),
        (.timedOut(seconds: 0.3, requestSent: false), "no response within 0.3 s"),
        (.connectionLost(reason: "connection reset by peer", requestSent: true), "the connection was lost: connection reset by peer"),
        (.badResponse(reason: "no status line"), "the server's answer is not valid HTTP: no status line"),
        (.tlsFailed(reason: "certificate verify failed: Hostname mismatch"),
         "the server's TLS certificate is for another host name: use the name it was made for in the remote URL"),
        (.tlsFailed(reason: "certificate verify failed: certificate has expired"),
         "the server's TLS certificate is out of its validity dates: the server needs a new certificate"),
        (.tlsFailed(reason: "SSL certificate problem: self-signed certificate"),
         "the server's TLS certificate is not trusted (self-signed certificate): give the CA that signed it with "
            + "'todo remote set --ca-file PATH' (or add it to the system's certificate store)"),
        (.tlsFailed(reason: "cannot load the CA file /x.pem: no certificate in it"),
         "the CA file cannot be used (cannot load the CA file /x.pem: no certificate in it): set a PEM file with 'todo remote set --ca-file PATH'"),
        (.tlsFailed(reason: "error:0A00010B:SSL routines::wrong version number"),
         "the server does not speak TLS on this port: check the port, or use an http:// URL"),
        (.tlsFailed(reason: "no TLS handshake within 2 s"), "TLS handshake failed: no TLS handshake within 2 s"),
        (.helperUnavailable(endpoint: "example.com:443", .notFound),
         "cannot connect to example.com:443: cannot run todo-remote-https (needed for https remotes): "
            + "not found next to this program or on PATH; install it beside todo or set TODO_REMOTE_HELPER to its path"),
        (.helperUnavailable(endpoint: "example.com:443",
                            .cannotStart(path: "/nonexistent/todo-remote-https", reason: "No such file or directory")),
         "cannot connect to example.com:443: cannot run todo-remote-https (needed for https remotes): "
            + "No such file or directory (/nonexistent/todo-remote-https)"),
        (.helperUnavailable(endpoint: "example.com:443", .endedBeforeTheRequest("exit status 1")),
         "cannot connect to example.com:443: cannot run todo-remote-https (needed for https remotes): "
            + "it ended (exit status 1) before taking the request"),
    ]

    @Test("each failure's line", arguments: rows) func line(_ failure: TransportFailure, _ text: String) {
        #expect(TransportFailureText.sentence(failure) == text)
    }

    @Test("a network stop says its failure's line") func networkStop() {
        let failure = TransportFailure.tlsFailed(reason: "error:0A00010B:SSL routines::wrong version number")
        #expect(SyncStopText.sentence(SyncStop(.network(failure))) == TransportFailureText.sentence(failure))
    }
}
