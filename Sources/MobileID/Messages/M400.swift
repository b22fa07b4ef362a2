import FoundationEssentials
import Glibc
import TamgaSupport

/// The app's presentation (M400): the verifiable presentation for one transaction.
public struct M400: Equatable, Sendable {
    /// `presentType` (`PresentTypeEnum`).
    public enum PresentType: Int, Sendable { case didAuth = 0, didVP = 1, zkpVP = 2 }
    /// `encryptType`: how `data` is encrypted.
    public enum EncryptType: Int, Sendable { case none = 0, aes128 = 1, aes256 = 2 }
    /// `keyType`: the key that wraps the AES key.
    public enum KeyType: Int, Sendable { case none = -1, secp256k1 = 0, secp256r1 = 1, rsa = 2 }

    public var version: String
    public var transactionCode: String
    public var presentType: PresentType
    public var encryptType: EncryptType
    public var keyType: KeyType
    public var authType: [String]
    public var did: String?
    /// The profile's nonce (`nonce`, or `zkpNonce` for a ZKP presentation).
    public var nonce: String?
    public var timezone: String?
    /// The (encrypted) presentation, hex for RSA-wrapped keys.
    public var data: String

    public init(
        version: String = "1.0.0", transactionCode: String, presentType: PresentType, encryptType: EncryptType,
        keyType: KeyType,
        authType: [String] = [], did: String? = nil, nonce: String?, timezone: String? = nil, data: String
    ) {
        self.version = version
        self.transactionCode = transactionCode
        self.presentType = presentType
        self.encryptType = encryptType
        self.keyType = keyType
        self.authType = authType
        self.did = did
        self.nonce = nonce
        self.timezone = timezone
        self.data = data
    }

    public init(object: [String: Any]) throws {
        guard object["type"] as? String == "mip" else {
            throw MobileIDError.unexpectedMessage(expected: "mip M400", got: "type \(object["type"] ?? "none")")
        }
        guard object["cmd"] as? String == "400" else {
            throw MobileIDError.unexpectedMessage(expected: "M400", got: "cmd \(object["cmd"] ?? "none")")
        }
        guard let version = object["version"] as? String, !version.isEmpty else {
            throw MobileIDError.malformedMessage(message: "M400", detail: "version is missing")
        }
        // The guide's SP sample spells it trxCode once; accept both.
        guard let code = (object["trxcode"] ?? object["trxCode"]) as? String else {
            throw MobileIDError.malformedMessage(message: "M400", detail: "trxcode is missing")
        }
        guard TransactionCode.isValid(code) else { throw MobileIDError.malformedTransactionCode(code) }
        guard let vp = object["vp"] as? [String: Any] else {
            throw MobileIDError.malformedMessage(message: "M400", detail: "vp is missing or not an object")
        }
        func integer(_ field: String) throws -> Int {
            guard let value = vp[field] as? Int ?? (vp[field] as? String).flatMap(Int.init) else {
                throw MobileIDError.malformedMessage(message: "M400", detail: "vp.\(field) is missing")
            }
            return value
        }
        let present = try integer("presentType"), encrypt = try integer("encryptType"), key = try integer("keyType")
        guard let presentType = PresentType(rawValue: present) else {
            throw MobileIDError.unsupportedValue(field: "presentType", value: String(present))
        }
        guard let encryptType = EncryptType(rawValue: encrypt) else {
            throw MobileIDError.unsupportedValue(field: "encryptType", value: String(encrypt))
        }
        guard let keyType = KeyType(rawValue: key) else {
            throw MobileIDError.unsupportedValue(field: "keyType", value: String(key))
        }
        if let type = vp["type"] as? String, type != "VERIFY" {
            throw MobileIDError.unsupportedValue(field: "type", value: type)
        }
        guard let data = vp["data"] as? String, !data.isEmpty else {
            throw MobileIDError.malformedMessage(message: "M400", detail: "vp.data is missing")
        }
        self.version = version
        transactionCode = code
        self.presentType = presentType
        self.encryptType = encryptType
        self.keyType = keyType
        authType = (vp["authType"] as? [String]) ?? []
        did = vp["did"] as? String
        nonce = (presentType == .zkpVP ? vp["zkpNonce"] : vp["nonce"]) as? String
        timezone = vp["timezone"] as? String
        self.data = data
    }

    /// From JSON text (the indirect callback's `data`) or base64url of it (the direct POST's).
    public init(text: String) throws {
        if let object = (try? JSON.parse(Data(text.utf8))) as? [String: Any] {
            try self.init(object: object)
        } else {
            try self.init(object: try Base64URL.object(text, field: "data", message: "M400"))
        }
    }

    public var json: Data {
        var vp: [String: Any] = [
            "presentType": presentType.rawValue, "encryptType": encryptType.rawValue, "keyType": keyType.rawValue,
            "type": "VERIFY", "data": data,
        ]
        if presentType == .zkpVP {
            vp["zkpNonce"] = nonce
        } else {
            vp["nonce"] = nonce
            vp["authType"] = authType
            if let did { vp["did"] = did }
        }
        if let timezone { vp["timezone"] = timezone }
        return Base64URL.json([
            "type": "mip", "version": version, "cmd": "400", "request": "presentation", "trxcode": transactionCode,
            "vp": vp,
        ])
    }

    /// What an SP server checks before it decrypts anything: its own transaction, the profile's
    /// nonce (compared in constant time), supported VP fields, and the authentication the
    /// profile asked for (`nil`: "general", pin or bio; `["pin", "face"]`: both).
    public func check(
        transactionCode expected: String, nonce expectedNonce: String, requiredAuthType: [String]? = nil,
        supportedKeyTypes: Set<KeyType> = [.rsa], supportedEncryptTypes: Set<EncryptType> = [.aes128, .aes256]
    ) throws {
        guard transactionCode == expected else {
            throw MobileIDError.transactionMismatch(expected: expected, got: transactionCode)
        }
        guard let nonce, ConstantTime.equal(Array(nonce.utf8), Array(expectedNonce.utf8)) else {
            throw MobileIDError.nonceMismatch
        }
        guard supportedKeyTypes.contains(keyType) else {
            throw MobileIDError.unsupportedValue(field: "keyType", value: String(keyType.rawValue))
        }
        guard supportedEncryptTypes.contains(encryptType) else {
            throw MobileIDError.unsupportedValue(field: "encryptType", value: String(encryptType.rawValue))
        }
        guard presentType != .zkpVP else { return }  // a ZKP presentation proves its claims without authType
        let given = Set(authType.map { $0.lowercased() })
        if let required = requiredAuthType {
            guard Set(required.map { $0.lowercased() }).isSubset(of: given) else {
                throw MobileIDError.authTypeMismatch(required: required.joined(separator: " and "), got: authType)
            }
        } else if given.isDisjoint(with: ["pin", "bio"]) {
            throw MobileIDError.authTypeMismatch(required: "pin or bio", got: authType)
        }
    }
}
