/// The messages a server sends (protocol 3.0, §55.7), decoded from a type byte and a body.
enum BackendMessage {
    case authentication(Authentication)
    case backendKeyData(processID: Int32, secretKey: Int32)
    case parameterStatus(name: String, value: String)
    /// `I` idle, `T` in a transaction, `E` in a failed transaction.
    case readyForQuery(transactionStatus: UInt8)
    case error(PostgresServerError)
    case notice
    case parseComplete
    case bindComplete
    case noData
    case rowDescription([PostgresColumn])
    case dataRow([[UInt8]?])
    case commandComplete(tag: String)
    case emptyQueryResponse
    /// Anything else this client has no use for (ParameterDescription, NegotiateProtocolVersion,
    /// NotificationResponse…).
    case ignored(type: UInt8)

    enum Authentication {
        case ok
        case sasl(mechanisms: [String])
        case saslContinue(data: [UInt8])
        case saslFinal(data: [UInt8])
        /// 3 cleartext, 5 md5, 7 GSS, 9 SSPI…: methods this client does not speak.
        case other(code: Int32)
    }

    static func decode(type: UInt8, body: ArraySlice<UInt8>) throws(PostgresError) -> BackendMessage {
        var reader = ByteReader(body)
        switch type {
        case UInt8(ascii: "R"):
            let code = try reader.int32()
            switch code {
            case 0: return .authentication(.ok)
            case 10:
                var mechanisms: [String] = []
                while true {
                    let name = try reader.cString()
                    if name.isEmpty { break }
                    mechanisms.append(name)
                }
                return .authentication(.sasl(mechanisms: mechanisms))
            case 11: return .authentication(.saslContinue(data: reader.rest()))
            case 12: return .authentication(.saslFinal(data: reader.rest()))
            default: return .authentication(.other(code: code))
            }
        case UInt8(ascii: "K"):
            return .backendKeyData(processID: try reader.int32(), secretKey: try reader.int32())
        case UInt8(ascii: "S"):
            return .parameterStatus(name: try reader.cString(), value: try reader.cString())
        case UInt8(ascii: "Z"):
            return .readyForQuery(transactionStatus: try reader.byte())
        case UInt8(ascii: "E"):
            return .error(try decodeError(&reader))
        case UInt8(ascii: "N"): return .notice
        case UInt8(ascii: "1"): return .parseComplete
        case UInt8(ascii: "2"): return .bindComplete
        case UInt8(ascii: "n"): return .noData
        case UInt8(ascii: "I"): return .emptyQueryResponse
        case UInt8(ascii: "C"): return .commandComplete(tag: try reader.cString())
        case UInt8(ascii: "T"):
            let count = Int(try reader.int16())
            var columns: [PostgresColumn] = []
            for _ in 0..<max(0, count) {
                let name = try reader.cString()
                _ = try reader.int32()  // table oid
                _ = try reader.int16()  // column number
                let typeOID = UInt32(bitPattern: try reader.int32())
                _ = try reader.int16()  // type size
                _ = try reader.int32()  // type modifier
                _ = try reader.int16()  // format
                columns.append(PostgresColumn(name: name, typeOID: typeOID))
            }
            return .rowDescription(columns)
        case UInt8(ascii: "D"):
            let count = Int(try reader.int16())
            var cells: [[UInt8]?] = []
            cells.reserveCapacity(max(0, count))
            for _ in 0..<max(0, count) {
                let length = try reader.int32()
                cells.append(length < 0 ? nil : try reader.bytes(Int(length)))
            }
            return .dataRow(cells)
        default:
            return .ignored(type: type)
        }
    }

    /// Fields are a code byte and a string each, up to a zero byte (§55.8).
    private static func decodeError(_ reader: inout ByteReader) throws(PostgresError) -> PostgresServerError {
        var fields: [UInt8: String] = [:]
        while true {
            let code = try reader.byte()
            if code == 0 { break }
            fields[code] = try reader.cString()
        }
        func field(_ c: Character) -> String? { fields[c.asciiValue!] }
        return PostgresServerError(
            sqlState: field("C") ?? "XX000", severity: field("V") ?? field("S") ?? "ERROR",
            message: field("M") ?? "(no message)", detail: field("D"), hint: field("H"), constraint: field("n"),
            schema: field("s"), table: field("t"), column: field("c"), position: field("P").flatMap { Int($0) })
    }
}

/// Reads big-endian integers and zero-terminated strings from a message body; running past its
/// end is a protocol violation, never a crash.
struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    mutating func byte() throws(PostgresError) -> UInt8 {
        guard offset < bytes.endIndex else { throw Self.truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func int16() throws(PostgresError) -> Int16 {
        let high = UInt16(try byte()), low = UInt16(try byte())
        return Int16(bitPattern: high << 8 | low)
    }

    mutating func int32() throws(PostgresError) -> Int32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(try byte()) }
        return Int32(bitPattern: value)
    }

    mutating func cString() throws(PostgresError) -> String {
        guard let end = bytes[offset...].firstIndex(of: 0) else { throw Self.truncated }
        defer { offset = end + 1 }
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }

    mutating func bytes(_ count: Int) throws(PostgresError) -> [UInt8] {
        guard count >= 0, bytes.endIndex - offset >= count else { throw Self.truncated }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func rest() -> [UInt8] {
        defer { offset = bytes.endIndex }
        return Array(bytes[offset...])
    }

    private static let truncated = PostgresError.protocolViolation("a message from the server ends too early")
}
