import Testing
@testable import PostgresClient

/// Encoding and decoding without a server: messages, timestamps, decimal checks.
@Suite struct WireTests {
    @Test func anErrorResponseKeepsEveryField() throws {
        var body: [UInt8] = []
        for (code, value) in [("S", "ERREUR"), ("V", "ERROR"), ("C", "23505"), ("M", "duplicate key"), ("D", "Key (id)=(1)"),
                              ("n", "t_pkey"), ("t", "t"), ("s", "public"), ("P", "7")] {
            body += Array(code.utf8) + Array(value.utf8) + [0]
        }
        body.append(0)
        guard case .error(let error) = try BackendMessage.decode(type: UInt8(ascii: "E"), body: body[...]) else {
            Issue.record("not decoded as an error")
            return
        }
        #expect(error == PostgresServerError(sqlState: "23505", severity: "ERROR", message: "duplicate key", detail: "Key (id)=(1)",
                                             constraint: "t_pkey", schema: "public", table: "t", position: 7))
    }

    @Test func aDataRowKeepsNullApartFromEmpty() throws {
        let body: [UInt8] = [0, 3, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 2, 0x68, 0x69]
        guard case .dataRow(let cells) = try BackendMessage.decode(type: UInt8(ascii: "D"), body: body[...]) else {
            Issue.record("not decoded as a row")
            return
        }
        #expect(cells == [nil, [], Array("hi".utf8)])
    }

    @Test func aTruncatedMessageIsAProtocolViolation() {
        let body: [UInt8] = [0, 2, 0, 0, 0, 5, 0x41]
        guard case .protocolViolation? = postgresError({ _ = try BackendMessage.decode(type: UInt8(ascii: "D"), body: body[...]) }) else {
            Issue.record("expected .protocolViolation")
            return
        }
    }

    @Test func bindCarriesValuesApartFromTheSQL() throws {
        let parse = FrontendMessage.parse(sql: "SELECT $1", parameterTypes: [PostgresType.text]).encoded()
        #expect(parse == [UInt8(ascii: "P"), 0, 0, 0, 21, 0] + Array("SELECT $1".utf8) + [0, 0, 1, 0, 0, 0, 25])
        let bind = FrontendMessage.bind(parameters: [Array("'x".utf8), nil]).encoded()
        #expect(bind == [UInt8(ascii: "B"), 0, 0, 0, 22, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0x27, 0x78, 0xff, 0xff, 0xff, 0xff, 0, 0])
    }

    @Test(arguments: [
        ("1970-01-01 00:00:00+00", Int64(0)),
        ("2024-05-01 09:00:00.123456+00", 1_714_554_000_123_456),
        ("2024-05-01 14:30:00.5+05:30", 1_714_554_000_500_000),
        ("1969-12-31 23:59:59.999999+00", -1),
        ("0001-01-01 00:00:00+00", -62_135_596_800_000_000),
        ("2000-02-29 12:00:00-03", 951_836_400_000_000),
    ])
    func timestampTextIsRead(text: String, micros: Int64) {
        #expect(PostgresTimestamp(postgresText: text)?.microsecondsSince1970 == micros)
    }

    @Test func timestampTextRoundTrips() {
        for micros: Int64 in [0, -1, 1, 86_399_999_999, -86_400_000_000, 253_402_300_799_999_999, -62_135_596_800_000_000] {
            let value = PostgresTimestamp(microsecondsSince1970: micros)
            #expect(PostgresTimestamp(postgresText: value.postgresText) == value)
        }
        #expect(PostgresTimestamp(microsecondsSince1970: -1).postgresText == "1969-12-31 23:59:59.999999+00")
        for bad in ["infinity", "2024-13-01 00:00:00+00", "2024-05-01 09:00:00", "2024-05-01 09:00:00.1234567+00", "0044-03-15 12:00:00+00 BC"] {
            #expect(PostgresTimestamp(postgresText: bad) == nil, "\(bad)")
        }
    }

    @Test func decimalsAreCheckedBeforeSending() {
        for good in ["0", "-12.50", "+3", ".5", "5.", "1e-3", "2E+10", "NaN"] { #expect(PostgresValue.isDecimal(good), "\(good)") }
        for bad in ["", "-", ".", "1.2.3", "1e", "12a", "1; DROP TABLE t", "0x10", " 1"] { #expect(!PostgresValue.isDecimal(bad), "\(bad)") }
    }
}
