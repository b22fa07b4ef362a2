/// Finds tokens across modules: the modules registered with p11-kit, or one module by path.
public enum PKCS11Tokens {
    /// A token, where it is, and what it says of itself.
    public struct Token: Sendable {
        public let module: PKCS11Module
        public let slot: Slot
        public let info: TokenInfo
    }

    /// `path` loads that module; nil takes every module registered with p11-kit.
    public static func modules(path: String?) throws -> [PKCS11Module] {
        if let path { return [try PKCS11Module.load(path: path)] }
        return try PKCS11Module.registered()
    }

    /// Every initialised token in `modules` (uninitialised slots, such as SoftHSM's spare one,
    /// are skipped). A module whose slots cannot be listed is skipped too, not fatal: one broken
    /// module must not hide the others' tokens.
    public static func tokens(in modules: [PKCS11Module]) -> [Token] {
        modules.flatMap { module -> [Token] in
            guard let slots = try? module.slotsWithTokens() else { return [] }
            return slots.compactMap { slot in
                guard let info = try? module.tokenInfo(slot), info.isInitialized else { return nil }
                return Token(module: module, slot: slot, info: info)
            }
        }
    }

    /// The token labelled `label` (or, without a label, the only token), tokens that
    /// offer neither sign nor any key being the caller's problem.
    public static func choose(label: String?, in modules: [PKCS11Module]) throws -> Token {
        let all = tokens(in: modules)
        if let label {
            let matching = all.filter { $0.info.label == label }
            guard let first = matching.first else { throw PKCS11Error.tokenNotFound(label: label) }
            // The same token reached through two modules (registered and by path) is one token.
            if Set(matching.map(\.info.serialNumber)).count > 1 {
                throw PKCS11Error.severalTokens(labels: matching.map { "\($0.info.label) (\($0.info.serialNumber))" })
            }
            return first
        }
        let distinct = Dictionary(
            all.map { ($0.info.serialNumber + "/" + $0.info.label, $0) }, uniquingKeysWith: { first, _ in first })
        guard distinct.count <= 1 else {
            throw PKCS11Error.severalTokens(labels: distinct.values.map(\.info.label).sorted())
        }
        guard let only = distinct.values.first else { throw PKCS11Error.tokenNotFound(label: nil) }
        return only
    }
}
