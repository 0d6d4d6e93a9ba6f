#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoServer

exit(ServerMain.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current()))
