import TodoModel

/// `config.json`: the replica's remote and defaults.
public struct ConfigFile: DiskRecord, Sendable {
    public static let format = 1
    public var value: ReplicaConfig

    public init(_ value: ReplicaConfig) { self.value = value }

    /// `caFile` is written only when set, so replicas without one keep the file older todos read.
    /// `appKey` (`legacyAppKey`) is read, never written: the key lives in `.todo/app-key`.
    public var json: JSONValue {
        let c = value
        var members: [String: JSONValue] = [
            "format": .number(Double(Self.format)), "remote": c.remote.map { .string($0) } ?? .null,
            "protocol": .string(c.protocolGeneration.rawValue), "defaultTable": .string(c.defaultTable),
            "installationId": .string(c.installationId), "pageSize": .number(Double(c.pageSize))]
        if let caFile = c.caFile { members["caFile"] = .string(caFile) }
        return .object(members)
    }

    public init(current r: RecordReader) throws(RecordError) {
        let pageSize = try r.int("pageSize")
        guard (1...1000).contains(pageSize) else { throw RecordError("\"pageSize\" is \(pageSize); it must be 1 to 1000") }
        let table = try r.string("defaultTable")
        if let problem = TableName.problem(table) { throw RecordError("\"defaultTable\": \(problem)") }
        value = ReplicaConfig(remote: try r.optionalString("remote"),
                              protocolGeneration: try r.oneOf("protocol", ReplicaConfig.ProtocolGeneration.self,
                                                              expected: "mobile-apps or mobile-services"),
                              legacyAppKey: try r.optionalString("appKey"), defaultTable: table,
                              installationId: try r.string("installationId"), pageSize: pageSize,
                              caFile: try r.optionalString("caFile"))
    }

    /// Format 1 is the first.
    public static func migrate(_ members: [String: JSONValue], from format: Int) throws(RecordError) -> [String: JSONValue] {
        throw FormatVersion.noOlderFormat(format, current: Self.format)
    }
}

/// `state.json`: the counters that are never reused, and the store's generation.
public struct StateFile: DiskRecord, Sendable {
    public static let format = 1
    public var value: ReplicaState

    public init(_ value: ReplicaState) { self.value = value }

    public var json: JSONValue {
        ["format": .number(Double(Self.format)), "generation": .number(Double(value.generation)),
         "nextSequence": .number(Double(value.nextSequence)), "nextReceipt": .number(Double(value.nextReceipt))]
    }

    public init(current r: RecordReader) throws(RecordError) {
        value = ReplicaState(generation: try r.int("generation"), nextSequence: try r.int("nextSequence"),
                             nextReceipt: try r.int("nextReceipt"))
    }

    /// Format 1 is the first.
    public static func migrate(_ members: [String: JSONValue], from format: Int) throws(RecordError) -> [String: JSONValue] {
        throw FormatVersion.noOlderFormat(format, current: Self.format)
    }
}
