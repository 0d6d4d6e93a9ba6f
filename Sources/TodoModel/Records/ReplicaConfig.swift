/// The replica's configuration (`config.json`): its remote and defaults.
public struct ReplicaConfig: Sendable, Equatable {
    /// The protocol generation spoken to the remote (protocol §2).
    public enum ProtocolGeneration: String, Sendable, CaseIterable {
        case mobileApps = "mobile-apps"
        case mobileServices = "mobile-services"
    }

    public var remote: String?
    public var protocolGeneration: ProtocolGeneration
    /// The `appKey` member that `todo` wrote here before issue 17; nil when there is none. Read so
    /// that such replicas keep working, never written: the key now lives in `.todo/app-key`, mode
    /// 0600 (`AppKeyFile` in TodoStore), and moves there at the next write of the config.
    public var legacyAppKey: String?
    public var defaultTable: String
    /// Sent as X-ZUMO-INSTALLATION-ID; made once at `todo init`.
    public var installationId: String
    public var pageSize: Int
    /// The absolute path of the PEM file of certificate authorities trusted for an https remote
    /// instead of the system's store (`todo remote set --ca-file`, as git's `http.sslCAInfo`);
    /// nil for the system's. A path, not the certificates: renewing the CA file needs no command.
    public var caFile: String?

    public init(remote: String? = nil, protocolGeneration: ProtocolGeneration = .mobileApps, legacyAppKey: String? = nil,
                defaultTable: String = TableName.defaultTable, installationId: String, pageSize: Int = 50,
                caFile: String? = nil) {
        self.remote = remote
        self.protocolGeneration = protocolGeneration
        self.legacyAppKey = legacyAppKey
        self.defaultTable = defaultTable
        self.installationId = installationId
        self.pageSize = pageSize
        self.caFile = caFile
    }
}

/// Counters that are never reused (`state.json`), and the store's generation, which every commit
/// bumps so lock-free readers can tell that a writer changed the store under them.
public struct ReplicaState: Sendable, Equatable {
    public var generation: Int
    public var nextSequence: Int
    public var nextReceipt: Int

    public init(generation: Int = 0, nextSequence: Int = 1, nextReceipt: Int = 1) {
        self.generation = generation
        self.nextSequence = nextSequence
        self.nextReceipt = nextReceipt
    }
}
