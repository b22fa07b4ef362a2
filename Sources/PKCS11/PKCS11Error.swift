/// What went wrong with a PKCS#11 module or token, phrased as what the person can do next.
/// The case is the stable code (`code`); raw `CK_RV` values are kept where they explain more.
public enum PKCS11Error: Error, Equatable, Sendable {
    case moduleNotFound(path: String)
    case moduleFailedToLoad(path: String, reason: String)
    case noRegisteredModules(reason: String)
    case tokenNotFound(label: String?)
    case severalTokens(labels: [String])
    case tokenRemoved
    case keyNotFound(token: String, id: String?)
    case severalKeys(token: String, ids: [String])
    case certificateNotFound(token: String, id: String)
    case mechanismNotSupported(String)
    /// Wrong PIN; the flags say whether the token counts tries (count low, final try).
    case pinIncorrect(countLow: Bool, finalTry: Bool)
    case pinLocked
    case pinLength
    case pinExpired
    case cancelled
    case unsupportedKey(String)
    /// Any other `CK_RV`, with the function that returned it.
    case failure(function: String, returnValue: UInt)

    public var code: String {
        switch self {
        case .moduleNotFound: "pkcs11-module-not-found"
        case .moduleFailedToLoad: "pkcs11-module-failed"
        case .noRegisteredModules: "pkcs11-no-modules"
        case .tokenNotFound: "token-not-found"
        case .severalTokens: "several-tokens"
        case .tokenRemoved: "token-removed"
        case .keyNotFound: "key-not-found"
        case .severalKeys: "several-keys"
        case .certificateNotFound: "certificate-not-found"
        case .mechanismNotSupported: "mechanism-not-supported"
        case .pinIncorrect: "wrong-pin"
        case .pinLocked: "pin-blocked"
        case .pinLength: "pin-length"
        case .pinExpired: "pin-expired"
        case .cancelled: "cancelled"
        case .unsupportedKey: "unsupported-key"
        case .failure: "pkcs11-failure"
        }
    }

    /// The one place a `CK_RV` becomes an error (nil for CKR_OK).
    static func from(_ value: UInt, function: String) -> PKCS11Error? {
        switch value {
        case 0x000: nil  // CKR_OK
        case 0x0A0: .pinIncorrect(countLow: false, finalTry: false)  // CKR_PIN_INCORRECT (flags added by the caller)
        case 0x0A1, 0x0A2: .pinLength  // CKR_PIN_INVALID, CKR_PIN_LEN_RANGE
        case 0x0A3: .pinExpired  // CKR_PIN_EXPIRED
        case 0x0A4: .pinLocked  // CKR_PIN_LOCKED
        case 0x050: .cancelled  // CKR_FUNCTION_CANCELED (PIN pad)
        // DEVICE_ERROR, DEVICE_REMOVED, TOKEN_NOT_PRESENT, SESSION_HANDLE_INVALID, TOKEN_NOT_RECOGNIZED
        case 0x030, 0x032, 0x0E0, 0x0B3, 0x0E1: .tokenRemoved
        case 0x070: .mechanismNotSupported(function)  // CKR_MECHANISM_INVALID
        default: .failure(function: function, returnValue: value)
        }
    }
}

extension PKCS11Error: CustomStringConvertible {
    public var description: String {
        switch self {
        case .moduleNotFound(let path):
            "No PKCS#11 module at \(path). Give the path of the token's .so (e.g. /usr/lib/librtpkcs11ecp.so)."
        case .moduleFailedToLoad(let path, let reason): "The PKCS#11 module \(path) failed to load: \(reason)."
        case .noRegisteredModules(let reason):
            "No PKCS#11 module is registered with p11-kit (\(reason)). Install the token's module or give --module PATH."
        case .tokenNotFound(let label):
            label.map { "No token labelled \($0) is present (tamga tokens lists them). Insert it, or check the label." }
                ?? "No token is present. Insert the token (tamga tokens lists what is seen)."
        case .severalTokens(let labels):
            "Several tokens are present (\(labels.joined(separator: ", "))). Say which with --with pkcs11:LABEL."
        case .tokenRemoved:
            "The token was removed (or stopped answering) during the operation; nothing was signed. Insert it and try again."
        case .keyNotFound(let token, let id):
            "Token \(token) has no signing key\(id.map { " with ID \($0)" } ?? "") (tamga tokens lists its keys)."
        case .severalKeys(let token, let ids):
            "Token \(token) has several signing keys (IDs \(ids.joined(separator: ", "))). Say which with --with pkcs11:\(token):ID."
        case .certificateNotFound(let token, let id):
            "Token \(token) has no certificate with the key's ID \(id); tamga signs only with certified keys."
        case .mechanismNotSupported(let what): "The token does not support the mechanism needed (\(what))."
        case .pinIncorrect(let low, let final):
            "Wrong PIN."
                + (final
                    ? " One try is left before the token locks the PIN."
                    : low ? " The token reports failed tries; it may lock the PIN soon." : "")
                + " Nothing was signed; tamga does not retry a PIN."
        case .pinLocked: "The token's PIN is locked. Unlock it with the token's SO PIN or management tool."
        case .pinLength: "The PIN has a length the token does not accept; nothing was signed."
        case .pinExpired: "The token's PIN has expired and must be changed with the token's tool first."
        case .cancelled: "Cancelled (at the PIN prompt or on the PIN pad); nothing was signed."
        case .unsupportedKey(let what): "The token's key cannot sign here: \(what)."
        case .failure(let function, let value):
            "\(function) failed with CK_RV 0x\(String(value, radix: 16, uppercase: true))."
        }
    }
}
