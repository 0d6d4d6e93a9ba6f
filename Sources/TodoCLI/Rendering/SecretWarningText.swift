import TodoStore

// What a command says before it sends a secret that others can read: where it is exposed, and
// the one command that fixes it. Empty when all is well.

extension ReplicaAppKey {
    func warnings(_ store: Store) -> [String] {
        var lines: [String] = []
        if source == .config {
            lines.append("warning: the app key is stored in \(store.displayPath(StoreLayout.configFile)), which other users "
                + "can read and a commit of the folder would publish; run 'todo remote set' to move it to "
                + "\(store.displayPath(AppKeyFile.name)) (mode 0600)")
        }
        if let mode = openMode { lines.append(SecretFile.appKey.openModeWarning(mode: mode, store)) }
        return lines
    }
}

extension ReplicaAuthToken {
    func warnings(_ store: Store) -> [String] {
        openMode.map { [SecretFile.authToken.openModeWarning(mode: $0, store)] } ?? []
    }
}

extension SecretFile {
    /// The file's mode lets others read it: the command that fixes it.
    func openModeWarning(mode: UInt32, _ store: Store) -> String {
        let octal = String(mode, radix: 8)
        return "warning: \(store.displayPath(name)) can be read by other users (mode "
            + String(repeating: "0", count: max(0, 4 - octal.count)) + octal + "); run: chmod 600 '\(store.layout.absolute(name))'"
    }
}
