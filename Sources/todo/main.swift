#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoCLI

// Unless the user set MALLOC_ARENA_MAX: then theirs holds.
if getenv("MALLOC_ARENA_MAX") == nil { MallocArenas.limit(to: 4) }

exit(TodoMain.run(Array(CommandLine.arguments.dropFirst()), context: .live()))
