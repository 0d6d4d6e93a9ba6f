/// Which user's token a replica sends as `X-ZUMO-AUTH` (issue 17 item 7), and from where:
/// `.todo/auth-token` (a `SecretFile`), else `TODO_AUTH_TOKEN`, else none.
public struct ReplicaAuthToken: Equatable, Sendable {
    public enum Source: String, Sendable {
        case file, environment, none
    }

    public static let environmentName = "TODO_AUTH_TOKEN"

    public var token: String?
    public var source: Source
    /// Set when the token file's mode lets others read it.
    public var openMode: UInt32?

    public static func resolve(_ store: Store, environment: [String: String]) throws(StoreError) -> ReplicaAuthToken {
        if let stored = try SecretFile.authToken.read(store) {
            return ReplicaAuthToken(token: stored.key, source: .file, openMode: stored.isOpenToOthers ? stored.mode : nil)
        }
        if let token = environment[environmentName], !token.isEmpty {
            return ReplicaAuthToken(token: token, source: .environment, openMode: nil)
        }
        return ReplicaAuthToken(token: nil, source: .none, openMode: nil)
    }
}
