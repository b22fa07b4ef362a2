/// An error of a lower module said in the words of the operation it ended: a wrong PIN while
/// changing a PIN speaks of nothing changed, not of nothing signed. Its code and exit code are
/// the underlying error's (`TamgaCommandLine.classify`).
struct OperationError: Error, CustomStringConvertible {
    let underlying: Error
    let description: String
}
