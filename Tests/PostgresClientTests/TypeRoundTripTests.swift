import TodoTestSupport
import Testing
@testable import PostgresClient

/// Every supported type goes to the real server as a bound parameter and comes back equal, and
/// hostile text stays text.
@Suite struct TypeRoundTripTests {
    static let texts = [
        "", "plain", "it's", "O'Reilly \"quoted\"", "back\\slash \\x00 \\\\ \\'", "line\nbreak\ttab\r",
        "unicode: héllo ✓ 日本語 🎉 \u{202E}rtl", "$1 $2 ?", "E'\\x41'",
        "'; DROP TABLE users; --", "Robert'); DROP TABLE students;--", "1' OR '1'='1", "x\"; SELECT pg_sleep(10); --",
    ]

    @Test func textAndInjectionAttemptsStayData() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let table = uniqueName("texts")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, body text NOT NULL)")
        for (index, text) in Self.texts.enumerated() {
            try connection.execute("INSERT INTO \(table) (id, body) VALUES ($1, $2)", [.int(Int64(index)), .text(text)])
        }
        let rows = try connection.query("SELECT id, body, length(body) AS n FROM \(table) ORDER BY id")
        #expect(rows.count == Self.texts.count)
        for row in rows {
            let text = Self.texts[try row.decode("id", as: Int.self)]
            #expect(try row.decode("body", as: String.self) == text)
            #expect(try row.decode("n", as: Int.self) == text.unicodeScalars.count)
        }
        // Found by equality as a parameter, too: the server compared it as a value.
        for text in Self.texts {
            #expect(try connection.query("SELECT id FROM \(table) WHERE body = $1", [.text(text)]).count == 1)
        }
        #expect(try connection.query("SELECT to_regclass($1) IS NOT NULL", [.text(table)])[0].decode(0, as: Bool.self))
    }

    @Test func aNULCharacterIsRefusedBeforeSending() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let error = postgresError { _ = try connection.query("SELECT $1", [.text("a\u{0}b")]) }
        guard case .invalidParameter(let reason)? = error else {
            Issue.record("expected .invalidParameter, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("$1") && reason.contains("bytea"))
        #expect(try connection.query("SELECT 1")[0].decode(0, as: Int.self) == 1)
    }

    @Test func twoStatementsInOneQueryAreRefused() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let error = postgresError { _ = try connection.query("SELECT 1; SELECT 2") }
        #expect(error?.sqlState == "42601")
        #expect(!connection.isBroken)
    }

    @Test func integersBooleansAndFloats() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        for value in [Int64.min, -1, 0, 1, Int64(Int32.max), Int64.max] {
            let row = try connection.query("SELECT $1 AS v, pg_typeof($1)::text AS t", [.int(value)])[0]
            #expect(try row.decode("v", as: Int64.self) == value)
            #expect(try row.decode("t", as: String.self) == "bigint")
        }
        #expect(try connection.query("SELECT $1::int4", [.int(Int64(Int32.min))])[0].decode(0, as: Int32.self) == Int32.min)
        #expect(postgresError { _ = try connection.query("SELECT $1::int4", [.int(Int64(Int32.max) + 1)]) }?.sqlState == "22003")
        for value in [true, false] {
            #expect(try connection.query("SELECT $1", [.bool(value)])[0].decode(0, as: Bool.self) == value)
        }
        for value in [0.1, -2.5, .pi, 1e308, .leastNonzeroMagnitude, -0.0, .infinity, -.infinity] {
            let back = try connection.query("SELECT $1", [.double(value)])[0].decode(0, as: Double.self)
            #expect(back == value && back.sign == value.sign)
        }
        #expect(try connection.query("SELECT $1", [.double(.nan)])[0].decode(0, as: Double.self).isNaN)
    }

    @Test func byteaNumericJSONAndNull() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        for bytes in [[], Array(0...255), [0, 0, 0], Array("it's \\ '".utf8)] as [[UInt8]] {
            let row = try connection.query("SELECT $1 AS b, length($1) AS n", [.bytea(bytes)])[0]
            #expect(try row.decode("b", as: [UInt8].self) == bytes)
            #expect(try row.decode("n", as: Int.self) == bytes.count)
        }
        for number in ["0", "-12.50", "123456789012345678901234567890.123456789", "NaN", "1e3"] {
            let back = try connection.query("SELECT $1", [.numeric(number)])[0].decode(0, as: String.self)
            #expect(back == (number == "1e3" ? "1000" : number))
        }
        #expect(try connection.query("SELECT $1", [.numeric("2.5")])[0].decode(0, as: Double.self) == 2.5)
        guard case .invalidParameter? = postgresError({ _ = try connection.query("SELECT $1", [.numeric("1; DROP")]) }) else {
            Issue.record("a numeric that is not a number must be refused before sending")
            return
        }

        let json = #"{"s": "it's \"q\" \\ ✓", "a": [1, 2.5, {"b": null}], "t": true}"#
        #expect(try connection.query("SELECT $1", [.json(json)])[0].decode(0, as: String.self) == json)
        let jsonb = try connection.query("SELECT $1 AS j, $1 -> 'a' ->> 1 AS second, jsonb_typeof($1) AS kind",
                                         [.jsonb(json)])[0]
        #expect(try jsonb.decode("second", as: String.self) == "2.5")
        #expect(try jsonb.decode("kind", as: String.self) == "object")
        let normalized = try jsonb.decode("j", as: String.self)
        #expect(try connection.query("SELECT $1 = $2", [.jsonb(normalized), .jsonb(json)])[0].decode(0, as: Bool.self))
        #expect(postgresError { _ = try connection.query("SELECT $1", [.jsonb("{not json")]) }?.sqlState == "22P02")

        let nulls = try connection.query("SELECT $1::text AS t, $2::int8 AS i", [.null, nil])[0]
        #expect(try nulls.decode("t", as: String?.self) == nil)
        #expect(try nulls.decode("i", as: Int?.self) == nil)
        guard case .decoding(let reason)? = postgresError({ _ = try nulls.decode("t", as: String.self) }) else {
            Issue.record("decoding NULL as String must fail")
            return
        }
        #expect(reason.contains("\"t\" is NULL"))
    }

    @Test func timestampsKeepMicroseconds() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let instants: [Int64] = [0, 1_714_554_000_123_456, -1, -62_135_596_800_000_000, 253_402_300_799_999_999, 951_782_400_000_001]
        for micros in instants {
            let value = PostgresTimestamp(microsecondsSince1970: micros)
            let row = try connection.query("SELECT $1 AS ts, (extract(epoch FROM $1) * 1000000)::int8 AS us", [.timestamptz(value)])[0]
            #expect(try row.decode("ts", as: PostgresTimestamp.self) == value)
            #expect(try row.decode("us", as: Int64.self) == micros)
        }
        // The server's own clock and text agree with ours.
        let literal = try connection.query("SELECT '2024-05-01 11:00:00.5+02'::timestamptz")[0].decode(0, as: PostgresTimestamp.self)
        #expect(literal == PostgresTimestamp(microsecondsSince1970: 1_714_554_000_500_000))
    }

    @Test func decodingTheWrongTypeIsAnError() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let row = try connection.query("SELECT 'x'::bytea AS b, 7 AS n")[0]
        #expect(postgresError { _ = try row.decode("b", as: String.self) } != nil)
        #expect(postgresError { _ = try row.decode("n", as: Bool.self) } != nil)
        #expect(postgresError { _ = try row.decode("missing", as: Int.self) } != nil)
        #expect(try row.decode(1, as: Int.self) == 7)
    }
}
