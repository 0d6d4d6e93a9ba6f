#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The isolation level a transaction starts with.
public enum PostgresIsolation: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

extension PostgresConnection {
    /// Runs `body` in a transaction and commits it. A serialization failure (40001) or deadlock
    /// (40P01) rolls back and runs `body` again from the start, up to `maxAttempts` times in all,
    /// so `body` must do nothing outside the database that cannot be repeated. Any other error
    /// rolls back and is rethrown. A connection lost during COMMIT throws
    /// `.transactionOutcomeUnknown`.
    public func transaction<T>(isolation: PostgresIsolation = .readCommitted, maxAttempts: Int = 5,
                               _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try TransactionAttempt.run(on: self, isolation: isolation, body)
            } catch {
                guard let failure = error as? PostgresError, failure.isTransactionConflict, attempt < maxAttempts,
                      !isBroken else { throw error }
                TransactionAttempt.backOff(attempt)
                attempt += 1
            }
        }
    }
}

/// One try at a transaction: BEGIN, the body, COMMIT; ROLLBACK when anything fails before COMMIT.
enum TransactionAttempt {
    static func run<T>(on connection: PostgresConnection, isolation: PostgresIsolation,
                       _ body: (PostgresConnection) throws -> T) throws -> T {
        connection.deferredBegin = "BEGIN ISOLATION LEVEL \(isolation.rawValue)"
        let value: T
        do {
            value = try body(connection)
        } catch {
            connection.dropBeforeCommit()
            if connection.deferredBegin != nil {
                connection.deferredBegin = nil  // nothing was sent: nothing to roll back
            } else if !connection.isBroken {
                _ = try? connection.execute("ROLLBACK")
            }
            throw error
        }
        if connection.deferredBegin != nil {
            connection.deferredBegin = nil  // a body that ran no statement: no transaction to commit
            connection.dropBeforeCommit()
            return value
        }
        let result: PostgresResult
        do {
            result = try connection.run("COMMIT")
        } catch {
            if error.closesConnection { throw PostgresError.transactionOutcomeUnknown(error.description) }
            // The statement run before COMMIT failed: COMMIT was skipped, so roll back.
            if connection.transactionStatus == UInt8(ascii: "E") { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
        if result.commandTag == "ROLLBACK" {
            throw PostgresError.server(PostgresServerError(
                sqlState: "25P02", severity: "ERROR",
                message: "the transaction was rolled back at COMMIT: a statement in it failed and its error was caught "
                    + "inside the transaction body; let the error leave the body instead"))
        }
        return value
    }

    /// Waits a little before another attempt, longer each time, with jitter so two conflicting
    /// transactions do not meet again at the same moment: up to 10, 20, 40… ms, at most 1 s.
    static func backOff(_ attempt: Int) {
        let ceiling = min(1000, 10 << min(attempt - 1, 10))
        let milliseconds = Int.random(in: ceiling / 2...ceiling)
        usleep(UInt32(milliseconds * 1000))
    }
}
