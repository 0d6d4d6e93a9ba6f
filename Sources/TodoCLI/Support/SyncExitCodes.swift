import TodoSync

/// The exit statuses of push, pull, sync, clone and `pull --verify` (sync.md §11.2, §4.9.2,
/// §5.9.2), decided here, in one place: the engines report what happened, the command line says
/// what it means for a script.
extension ExitCode {
    /// A stop: 1 when retrying cannot help until the setup changes (a missing table, a URL that is
    /// not a table server), 4 for the network, the server or credentials.
    static func of(_ stop: SyncStop) -> Int32 {
        switch stop.kind {
        case .config, .wrongURL: failure
        case .network, .auth, .server: network
        }
    }

    /// 3 when conflicts are open after the push.
    static func of(_ report: PushReport) -> Int32 {
        if let stop = report.stop { return of(stop) }
        return report.openConflicts > 0 ? conflicts : ok
    }

    /// 1 when the server refused a query; 3 when conflicts are open after the pull.
    static func of(_ report: PullReport) -> Int32 {
        if let stop = report.stop { return of(stop) }
        if report.queries.contains(where: { $0.rejected != nil }) { return failure }
        return report.openConflicts > 0 ? conflicts : ok
    }

    /// 0 when every copy agrees (or was repaired); 1 when a difference is left or a table was
    /// refused.
    static func of(_ report: RemoteVerifier.Report) -> Int32 {
        if let stop = report.stop { return of(stop) }
        if report.tables.contains(where: { $0.rejected != nil }) { return failure }
        return report.differences.isEmpty || report.repaired ? ok : failure
    }
}
