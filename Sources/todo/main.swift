#if canImport(Glibc)
import Glibc
#endif
import TodoCLI

exit(TodoMain.run(Array(CommandLine.arguments.dropFirst()), context: .live()))
