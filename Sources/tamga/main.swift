import Foundation
import TamgaCLI
exit(await TamgaCommandLine.main(TamgaCommandLine.processArguments()))
