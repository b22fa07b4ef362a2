import Foundation
import TamgaCLI
exit(await TamgaCommandLine.main(CommandLine.arguments))
