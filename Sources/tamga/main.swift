import Dispatch
import Glibc
import TamgaCLI

// `--version`, help and `readers`' listing are answered before Swift concurrency starts: its
// threads cost such a command a good part of its time. Everything else runs as the
// async main would have: a task on the main actor, the main queue served by dispatchMain.
let arguments = TamgaCommandLine.processArguments()
if let code = TamgaCommandLine.mainWithoutConcurrency(arguments) { TamgaCommandLine.exitAfterCommand(code) }
Task { TamgaCommandLine.exitAfterCommand(await TamgaCommandLine.main(arguments)) }
dispatchMain()
