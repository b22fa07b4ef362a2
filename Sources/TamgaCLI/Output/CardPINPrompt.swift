import FoundationEssentials
import Glibc
import IDCard
import TamgaCore

/// Gives the ID-card signer its PIN from `--pin-file`, `$TAMGA_PIN` or a terminal prompt that
/// says whose key it unlocks and how many tries are left (and warns on the last one).
struct CardPINPrompt: PINProvider {
    let secrets: SecretInput
    let terminal: Terminal

    func pin(for request: PINRequest) async throws -> SecretBytes {
        var prompt = "\(request.kind.rawValue) to \(request.purpose)"
        if let name = request.signerName { prompt += " as \(name)" }
        prompt += " (\(request.cardName) in \(request.readerName)"
        if let left = request.triesLeft { prompt += ", \(left) \(left == 1 ? "try" : "tries") left" }
        prompt += "): "
        if request.triesLeft == 1 {
            terminal.error(
                "Warning: one try left. A wrong \(request.kind.rawValue) now blocks it (the PUK unblocks it).")
        }
        do {
            return try secrets.read(prompt: prompt)
        } catch SecretInput.Failure.cancelled {
            throw CardError.cancelled
        }
    }
}
