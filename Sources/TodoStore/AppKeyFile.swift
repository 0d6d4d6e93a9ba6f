import TodoBasics
import TodoModel

/// The replica's app key, in `.todo/app-key` (a `SecretFile`).
///
/// Replicas written before issue 17 keep their key in `config.json`'s `appKey` and go on working:
/// the key is read from there when there is no `app-key` file (`ReplicaAppKey`), and moves here at
/// the next write of the config (`todo remote set`), which then drops it from `config.json`.
public enum AppKeyFile {
    public static let name = SecretFile.appKey.name
    public static let gitignore = SecretFile.gitignore
    public typealias Stored = SecretFile.Stored

    public static func read(_ store: Store) throws(StoreError) -> Stored? { try SecretFile.appKey.read(store) }

    public static func write(_ key: String?, in store: Store) throws(StoreError) { try SecretFile.appKey.write(key, in: store) }
}

/// Which app key a replica sends, and from where: `.todo/app-key`, else the `appKey` an older
/// `todo` left in `config.json`, else `TODO_APP_KEY`.
public struct ReplicaAppKey: Equatable, Sendable {
    public enum Source: String, Sendable {
        case file, config, environment, none
    }

    public var key: String?
    public var source: Source
    /// Set when the key file's mode lets others read it.
    public var openMode: UInt32?

    public static func resolve(_ store: Store, _ config: ReplicaConfig,
                               environment: [String: String]) throws(StoreError) -> ReplicaAppKey {
        if let stored = try AppKeyFile.read(store) {
            return ReplicaAppKey(key: stored.key, source: .file, openMode: stored.isOpenToOthers ? stored.mode : nil)
        }
        if let legacy = config.legacyAppKey { return ReplicaAppKey(key: legacy, source: .config, openMode: nil) }
        if let key = environment["TODO_APP_KEY"], !key.isEmpty {
            return ReplicaAppKey(key: key, source: .environment, openMode: nil)
        }
        return ReplicaAppKey(key: nil, source: .none, openMode: nil)
    }
}
