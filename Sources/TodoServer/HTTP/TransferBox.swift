import Synchronization

/// Moves a non-copyable value (a socket) into a thread's `@Sendable` closure, which can capture
/// only copyable references. The first `take` wins; the value then belongs to the taker.
final class TransferBox<Value: ~Copyable>: Sendable {
    private let slot: Mutex<Value?>

    init(_ value: consuming sending Value) {
        slot = Mutex(Optional(value))
    }

    /// The value; a second call is a programming error.
    func take() -> Value {
        guard let value = takeIfPresent() else { fatalError("TransferBox: value taken twice") }
        return value
    }

    func takeIfPresent() -> Value? {
        slot.withLock { $0.take() }
    }
}
