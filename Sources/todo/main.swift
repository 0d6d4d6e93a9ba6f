#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoCLI

MallocArenas.limit(to: 4)

exit(TodoMain.run(Array(CommandLine.arguments.dropFirst()), context: .live()))
