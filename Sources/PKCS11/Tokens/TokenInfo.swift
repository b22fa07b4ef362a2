import TamgaSupport

/// `C_GetInfo`: what the module says of itself.
public struct ModuleInfo: Sendable, Hashable {
    public let description: String
    public let manufacturer: String
    public let cryptokiVersion: String
    public let libraryVersion: String
}

/// A slot with a token in it. Slot IDs are not stable (SoftHSM picks them at random, the
/// p11-kit proxy renumbers them): tokens are chosen by label or serial, never by slot ID.
public struct Slot: Sendable, Hashable {
    public let id: UInt
    /// For PC/SC readers this is the reader name (`Aktiv Rutoken ECP 00 00`).
    public let description: String
    public let manufacturer: String
}

/// `C_GetTokenInfo`, with the flags a person cares about spelled out.
public struct TokenInfo: Sendable, Hashable {
    public let label: String
    public let manufacturer: String
    public let model: String
    public let serialNumber: String
    public let flags: UInt
    public let minimumPINLength: Int
    public let maximumPINLength: Int

    public var isInitialized: Bool { flags & (1 << 10) != 0 }  // CKF_TOKEN_INITIALIZED
    public var loginRequired: Bool { flags & (1 << 2) != 0 }  // CKF_LOGIN_REQUIRED
    /// The reader or token has its own PIN pad: C_Login with no PIN.
    public var hasProtectedAuthenticationPath: Bool { flags & (1 << 8) != 0 }
    public var pinCountLow: Bool { flags & (1 << 16) != 0 }
    public var pinFinalTry: Bool { flags & (1 << 17) != 0 }
    public var pinLocked: Bool { flags & (1 << 18) != 0 }
    public var pinToBeChanged: Bool { flags & (1 << 19) != 0 }

    /// The flag names set, for listings.
    public var flagNames: [String] {
        Self.flagTable.filter { flags & (1 << $0.bit) != 0 }.map(\.name)
    }

    private static let flagTable: [(bit: UInt, name: String)] = [
        (0, "rng"), (1, "write-protected"), (2, "login-required"), (3, "user-pin-initialized"),
        (8, "protected-authentication-path"), (10, "token-initialized"), (16, "user-pin-count-low"),
        (17, "user-pin-final-try"), (18, "user-pin-locked"), (19, "user-pin-to-be-changed"),
    ]

    /// True for an Aktiv Rutoken (by manufacturer or model).
    public var isRutoken: Bool {
        manufacturer.containsTextIgnoringCase("aktiv") || model.containsTextIgnoringCase("rutoken")
    }

    /// The CryptoPro-style media name of a Rutoken (`rutoken_ecp_4a1b2c3d`): the family from the
    /// model, the serial as 8 lower-case hex digits (Rutoken shows the serial in decimal).
    public var rutokenMediaName: String? {
        guard isRutoken else { return nil }
        let family =
            model.containsTextIgnoringCase("lite")
            ? "rutoken_lt" : model.containsTextIgnoringCase("ecp") ? "rutoken_ecp" : "rutoken"
        let digits = serialNumber.trimmedSpaces()
        let value: UInt64? =
            digits.allSatisfy({ $0.isASCII && $0.isNumber }) ? UInt64(digits) : UInt64(digits, radix: 16)
        guard let value, value <= 0xFFFF_FFFF else { return nil }
        let hex = String(value, radix: 16)
        return "\(family)_\(String(repeating: "0", count: max(0, 8 - hex.count)) + hex)"
    }
}

/// A PKCS#11 mechanism, named where tamga knows it.
public struct Mechanism: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let rsaPKCS = Mechanism(rawValue: 0x0001)
    public static let rsaPKCSPSS = Mechanism(rawValue: 0x000D)
    public static let ecdsa = Mechanism(rawValue: 0x1041)
    public static let gostR3410 = Mechanism(rawValue: 0x1201)
    public static let gostR3410WithR3411 = Mechanism(rawValue: 0x1202)
    public static let gostR3410With2012_256 = Mechanism(rawValue: 0xD432_1008)
    public static let gostR3410With2012_512 = Mechanism(rawValue: 0xD432_1009)

    static let names: [UInt: String] = [
        0x0000: "RSA-PKCS-KEY-PAIR-GEN", 0x0001: "RSA-PKCS", 0x0003: "RSA-X-509", 0x000D: "RSA-PKCS-PSS",
        0x0040: "SHA256-RSA-PKCS", 0x0041: "SHA384-RSA-PKCS", 0x0042: "SHA512-RSA-PKCS",
        0x0043: "SHA256-RSA-PKCS-PSS", 0x0044: "SHA384-RSA-PKCS-PSS", 0x0045: "SHA512-RSA-PKCS-PSS",
        0x0250: "SHA256", 0x0260: "SHA384", 0x0270: "SHA512", 0x1040: "EC-KEY-PAIR-GEN", 0x1041: "ECDSA",
        0x1044: "ECDSA-SHA256", 0x1045: "ECDSA-SHA384", 0x1046: "ECDSA-SHA512", 0x1057: "EDDSA",
        0x1200: "GOSTR3410-KEY-PAIR-GEN", 0x1201: "GOSTR3410", 0x1202: "GOSTR3410-WITH-GOSTR3411", 0x1210: "GOSTR3411",
        0xD432_1006: "GOSTR3410-512", 0xD432_1008: "GOSTR3410-WITH-GOSTR3411-2012-256",
        0xD432_1009: "GOSTR3410-WITH-GOSTR3411-2012-512",
    ]

    public var description: String { Self.names[rawValue] ?? "0x" + String(rawValue, radix: 16) }

    /// GOST R 34.10 mechanisms (Rutoken): listed, not used for signing here.
    public var isGOST: Bool { (0x1200...0x1210).contains(rawValue) || (0xD432_1000...0xD432_10FF).contains(rawValue) }
}
