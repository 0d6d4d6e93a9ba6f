/// The messages this client sends (protocol 3.0, §55.7), each encoded as its type byte, an int32
/// length that counts itself, and the body. All integers are big-endian.
enum FrontendMessage {
    /// Protocol 3.0, then `name\0value\0` pairs and a closing `\0`. No type byte.
    case startup(parameters: [(String, String)])
    /// Sent on a separate connection to stop a running query. No type byte.
    case cancel(processID: Int32, secretKey: Int32)
    case saslInitialResponse(mechanism: String, data: [UInt8])
    case saslResponse(data: [UInt8])
    /// A statement ("" is the unnamed one); the type of each parameter is given, so the server
    /// never guesses.
    case parse(statement: String = "", sql: String, parameterTypes: [UInt32])
    /// The unnamed portal of a statement; every parameter and every result column in text format.
    case bind(statement: String = "", parameters: [[UInt8]?])
    case describePortal
    case execute
    case sync
    case terminate

    static let protocolVersion: Int32 = 196_608  // 3.0
    static let cancelRequestCode: Int32 = 80_877_102

    func encoded() -> [UInt8] {
        var body = MessageBody()
        switch self {
        case .startup(let parameters):
            body.int32(Self.protocolVersion)
            for (name, value) in parameters { body.cString(name); body.cString(value) }
            body.byte(0)
            return body.framed(type: nil)
        case .cancel(let processID, let secretKey):
            body.int32(Self.cancelRequestCode)
            body.int32(processID)
            body.int32(secretKey)
            return body.framed(type: nil)
        case .saslInitialResponse(let mechanism, let data):
            body.cString(mechanism)
            body.int32(Int32(data.count))
            body.bytes(data)
            return body.framed(type: "p")
        case .saslResponse(let data):
            body.bytes(data)
            return body.framed(type: "p")
        case .parse(let statement, let sql, let types):
            body.cString(statement)
            body.cString(sql)
            body.int16(Int16(types.count))
            for type in types { body.int32(Int32(bitPattern: type)) }
            return body.framed(type: "P")
        case .bind(let statement, let parameters):
            body.cString("")  // portal
            body.cString(statement)
            body.int16(0)     // every parameter in text format
            body.int16(Int16(parameters.count))
            for parameter in parameters {
                if let parameter {
                    body.int32(Int32(parameter.count))
                    body.bytes(parameter)
                } else {
                    body.int32(-1)
                }
            }
            body.int16(0)     // every result column in text format
            return body.framed(type: "B")
        case .describePortal:
            body.byte(UInt8(ascii: "P"))
            body.cString("")
            return body.framed(type: "D")
        case .execute:
            body.cString("")
            body.int32(0)     // all rows
            return body.framed(type: "E")
        case .sync:
            return body.framed(type: "S")
        case .terminate:
            return body.framed(type: "X")
        }
    }
}

/// A message body under construction.
struct MessageBody {
    private(set) var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func int16(_ value: Int16) {
        let bits = UInt16(bitPattern: value)
        bytes += [UInt8(bits >> 8), UInt8(bits & 0xFF)]
    }
    mutating func int32(_ value: Int32) {
        let bits = UInt32(bitPattern: value)
        bytes += [UInt8(bits >> 24), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF)]
    }
    mutating func cString(_ text: String) { bytes += Array(text.utf8); bytes.append(0) }
    mutating func bytes(_ data: [UInt8]) { bytes += data }

    func framed(type: Character?) -> [UInt8] {
        var length = MessageBody()
        length.int32(Int32(bytes.count + 4))
        return (type.map { [$0.asciiValue!] } ?? []) + length.bytes + bytes
    }
}
