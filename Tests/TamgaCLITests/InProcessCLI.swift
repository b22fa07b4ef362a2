import Foundation

@testable import TamgaCLI

/// Runs the CLI in this process, as `tamga WORDS…` would, and captures what it prints:
/// (exit code, standard output, standard error).
/// - Parameter interactive: whether standard error behaves as a terminal (progress drawn).
func runTamgaInProcess(
    _ words: [String], environment: [String: String] = [:], interactive: Bool = false
) async -> (ExitCode, String, String) {
    // unchecked: written by the one running command
    final class Capture: @unchecked Sendable { var out = "", err = "" }
    let capture = Capture()
    let terminal = Terminal(out: { capture.out += $0 }, err: { capture.err += $0 }, interactiveErrors: interactive)
    let code = await TamgaCommandLine.run(words, CommandContext(terminal: terminal, environment: environment))
    return (code, capture.out, capture.err)
}
