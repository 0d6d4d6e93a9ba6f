/// The release both programs report (`todo --version`, `todo-server --version`): one number, so
/// a replica and a server built together say the same.
public enum TodoVersion {
    public static let current = "0.1.0"
}
