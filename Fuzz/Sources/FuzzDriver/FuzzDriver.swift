/// libFuzzer's entry for programs that own `main`: parses the flags, then calls `testOne` with each input.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ testOne: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Starts libFuzzer with this process's arguments.
///
/// Why not libFuzzer's own `main`: SwiftPM links every executable with `--defsym main=<module>_main`,
/// so each target defines `<module>_main` (through `@_cdecl`) and calls this from it. Each target
/// also defines `LLVMFuzzerTestOneInput`, which libFuzzer's unused `main` still references.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ testOne: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, testOne)
}

/// Copies libFuzzer's input into an array (`start` is nil for the empty input).
public func inputBytes(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: start, count: count))
}

/// A broken contract: traps, so libFuzzer saves the input as `crash-<sha1>`.
public func violation(_ message: String, _ input: [UInt8]) -> Never {
    let preview = String(decoding: input.prefix(200), as: UTF8.self)
    fatalError("contract broken: \(message)\ninput (\(input.count) bytes): \(preview.debugDescription)")
}
