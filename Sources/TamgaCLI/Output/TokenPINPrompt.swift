import FoundationEssentials
import Glibc
import PKCS11
import TamgaCore

/// Gives the token signer its PIN from `--pin-file`, `$TAMGA_PIN` or a prompt that names the
/// token and the signer, and warns when the token reports failed tries.
struct TokenPINPrompt: TokenPINProvider {
    let secrets: SecretInput
    let terminal: Terminal

    func pin(for request: TokenPINRequest) async throws -> SecretBytes {
        if request.finalTry {
            terminal.error("Warning: the token reports one try left; a wrong PIN now locks it.")
        } else if request.countLow {
            terminal.error("Warning: the token reports earlier failed PIN tries.")
        }
        let what = request.forEachSignature ? "PIN for this signature" : "PIN"
        do {
            return try secrets.read(
                prompt: "\(what) of token \(request.tokenLabel) (signing as \(request.signerName)): ")
        } catch SecretInput.Failure.cancelled {
            throw PKCS11Error.cancelled
        }
    }
}
