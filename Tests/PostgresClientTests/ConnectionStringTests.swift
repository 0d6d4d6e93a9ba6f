import Testing
import TodoTestSupport
@testable import PostgresClient

/// Connection strings and where the password comes from; no server needed.
@Suite struct ConnectionStringTests {
    @Test func tcpURLWithEveryPart() throws {
        let config = try PostgresConfig.parse("postgres://alice@db.example:6543/todo?application_name=srv&connect_timeout=3",
                                              environment: [:])
        #expect(config.endpoint == .tcp(host: "db.example", port: 6543))
        #expect(config.user == "alice" && config.database == "todo")
        #expect(config.applicationName == "srv" && config.connectTimeout == 3)
        #expect(config.password == nil)
    }

    @Test func defaultsPortAndDatabase() throws {
        let config = try PostgresConfig.parse("postgresql://alice@db", environment: [:])
        #expect(config.endpoint == .tcp(host: "db", port: 5432))
        #expect(config.database == "alice")
        let ipv6 = try PostgresConfig.parse("postgres://bob@[::1]:5433/d", environment: [:])
        #expect(ipv6.endpoint == .tcp(host: "::1", port: 5433))
    }

    @Test func unixSocketForms() throws {
        let query = try PostgresConfig.parse("postgresql:///todo?host=/run/postgresql", environment: ["USER": "carol"])
        #expect(query.endpoint == .unixSocket(directory: "/run/postgresql", port: 5432))
        #expect(query.user == "carol" && query.database == "todo")
        let encoded = try PostgresConfig.parse("postgresql://dave@%2Ftmp%2Fpg:5444/todo", environment: [:])
        #expect(encoded.endpoint == .unixSocket(directory: "/tmp/pg", port: 5444))
        let bare = try PostgresConfig.parse("postgres:///todo", environment: ["PGUSER": "erin"])
        #expect(bare.endpoint == .unixSocket(directory: PostgresConfig.defaultSocketDirectory, port: 5432))
        #expect(bare.user == "erin")
    }

    @Test func aPasswordInTheStringIsRefused() {
        for text in ["postgres://alice:secret@db/todo", "postgres://alice@db/todo?password=secret"] {
            guard case .invalidConfiguration(let reason)? = postgresError({ _ = try PostgresConfig.parse(text, environment: [:]) }) else {
                Issue.record("\(text) must be refused")
                continue
            }
            #expect(reason.contains("PGPASSWORD") && !reason.contains("secret"))
        }
    }

    @Test func requiringTLSIsRefusedWithTheWayOut() throws {
        guard case .invalidConfiguration(let reason)? = postgresError({
            _ = try PostgresConfig.parse("postgres://alice@db/todo?sslmode=require", environment: [:])
        }) else {
            Issue.record("sslmode=require must be refused: this client has no TLS")
            return
        }
        #expect(reason.contains("TLS tunnel") && reason.contains("unix socket"))
        #expect(try PostgresConfig.parse("postgres://alice@db/todo?sslmode=disable", environment: [:]).user == "alice")
    }

    @Test func unknownParametersAndBadNumbersAreRefused() {
        #expect(postgresError { _ = try PostgresConfig.parse("postgres://a@db/t?conect_timeout=3", environment: [:]) }?
            .description.contains("conect_timeout") == true)
        #expect(postgresError { _ = try PostgresConfig.parse("postgres://a@db:99999/t", environment: [:]) } != nil)
        #expect(postgresError { _ = try PostgresConfig.parse("postgres://a@db:x/t", environment: [:]) } != nil)
        #expect(postgresError { _ = try PostgresConfig.parse("mysql://a@db/t", environment: [:]) } != nil)
    }

    @Test func thePasswordComesFromPGPASSWORDThenThePasswordFile() throws {
        let folder = TempDirectory("todo-pgpass")
        defer { folder.remove() }
        let file = folder.sub("pgpass")
        writeFile(file, """
            # host:port:database:user:password
            db.example:5432:other:alice:not-this-one
            db.example:5432:todo:alice:pa\\:ss\\\\word
            *:*:*:bob:bobs-password
            localhost:5432:todo:carol:carols-password

            """)
        let url = "postgres://alice@db.example/todo?passfile=\(file)"
        #expect(try PostgresConfig.parse(url, environment: [:]).password == "pa:ss\\word")
        #expect(try PostgresConfig.parse(url, environment: ["PGPASSWORD": "from-env"]).password == "from-env")
        #expect(try PostgresConfig.parse("postgres://bob@anywhere:7/x", environment: ["PGPASSFILE": file]).password
                == "bobs-password")
        #expect(try PostgresConfig.parse("postgresql:///todo?host=/run/postgresql&user=carol", environment: ["PGPASSFILE": file])
            .password == "carols-password")
        #expect(try PostgresConfig.parse("postgres://zed@db.example/todo", environment: ["PGPASSFILE": file]).password == nil)
        #expect(postgresError { _ = try PostgresConfig.parse("postgres://a@db/t?passfile=/no/such/file", environment: [:]) }?
            .description.contains("/no/such/file") == true)
    }
}
