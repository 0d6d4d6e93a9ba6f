// swift-tools-version:6.0
import PackageDescription

/// libFuzzer targets for the parsers that take untrusted bytes (issue 5, "Bad input").
///
/// Why a separate package: `-sanitize=fuzzer` has to instrument every module, and the fuzz
/// executables have no `main` of their own, so they must never be part of the main package's
/// `swift build` or `swift test`. The main package exposes no library products, so the library
/// targets are reached through symlinks (`Sources/<Target>` → `../../Sources/<Target>`).
///
/// Build and run with `Fuzz/run.sh [seconds]`; it is the only supported way to build this package.
let fuzzTarget: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "todo-fuzz",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "TodoBasics"),
        .target(name: "TodoModel"),
        .target(name: "TodoStore", dependencies: ["TodoBasics", "TodoModel"]),
        .target(name: "TableProtocol", dependencies: ["TodoModel"]),
        .target(name: "TodoServer", dependencies: ["TodoBasics", "TodoModel", "TableProtocol"]),
        /** Hands control to libFuzzer (`LLVMFuzzerRunDriver`) and reports broken contracts. */
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzHTTP", dependencies: ["FuzzDriver", "TableProtocol", "TodoServer", "TodoBasics"],
                          swiftSettings: fuzzTarget),
        .executableTarget(name: "FuzzFilter", dependencies: ["FuzzDriver", "TableProtocol", "TodoModel"],
                          swiftSettings: fuzzTarget),
        .executableTarget(name: "FuzzRecords", dependencies: ["FuzzDriver", "TodoModel", "TodoStore"],
                          swiftSettings: fuzzTarget),
        .executableTarget(name: "FuzzJournal", dependencies: ["FuzzDriver", "TodoModel", "TodoStore"],
                          swiftSettings: fuzzTarget),
    ]
)
