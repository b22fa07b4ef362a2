import ASiC
import FoundationEssentials
import IDCard
import PKCS11
import RemoteSigning
import TamgaCore
import TamgaSupport
import Threshold

/// What decides a choice between signers, one row each in `tamga compare --report`: where the
/// key lives and whether it can leave, what unlocks it, how many tries before it locks and who
/// unblocks it, the certificate's qualification, and what an attacker holding only the device,
/// or only the server, can do. The live facts come from the signer after its last run (the
/// card's PIN2 counter, the token's key attributes and PIN flags, the co-signer's PIN
/// allowance, the certificate's QC statements); the rest is what each kind of signer is.
struct SignerProperties: Codable, Equatable {
    var keyLocation: String
    var keyLeaves: String
    var unlock: String
    var triesBeforeLock: String
    var unblock: String
    var qualification: Qualification
    var signature: String
    var deviceAlone: String
    var serverAlone: String

    struct Qualification: Codable, Equatable {
        /// QcCompliance: a qualified certificate (EN 319 412-5).
        var qualified: Bool
        /// QcSSCD (or a QSCD policy): the key is on a qualified signature creation device.
        var qscd: Bool
        /// The QC statement and policy OIDs the certificate carries.
        var statements: [String]
        /// Where the verdict comes from.
        var source: String
    }

    static let noServer = "no server takes part"

    static func describe(
        _ signer: any Signer, certificate: Certificate, location: String, signatureValueBytes: Int?,
        trustedList: TrustedList? = nil, intermediates: [Certificate] = [],
        anchorsGiven: Bool = false
    ) -> SignerProperties {
        // The trusted list's qualifiers amend what the certificate says of itself, when one of
        // its services issued it.
        let issuer = intermediates.first { $0.isIssuer(of: certificate) }
        let listed = trustedList?.qualification(of: certificate, issuedBy: issuer, at: Date())
        let qualification = listed ?? certificate.qualification
        let keySize: String = {
            switch certificate.publicKey.type {
            case .rsa(let bits): return "RSA-\(bits)"
            case .ec(let curve): return curve.rawValue
            case .unsupported(let name): return name
            }
        }()
        var properties = SignerProperties(
            keyLocation: location, keyLeaves: "", unlock: "", triesBeforeLock: "", unblock: "",
            qualification: Qualification(
                qualified: qualification.qualified, qscd: qualification.onQualifiedDevice,
                statements: certificate.qcStatements + certificate.policies,
                source: listed != nil
                    ? "the certificate and the trusted list that names its issuer"
                    : trustedList != nil
                        ? "the certificate's QC statements and policies (no trusted list names its issuer)"
                        : anchorsGiven
                            ? "the certificate's QC statements and policies (--trust names CAs, not a trusted list: without --trust, compare reads the trust cache's lists)"
                            : "the certificate's QC statements and policies (no trusted list: the trust cache is empty; see tamga trust update)"
            ),
            signature: "\(signer.algorithm.description), \(keySize)"
                + (signatureValueBytes.map { ", \($0) B value" } ?? ""),
            deviceAlone: "", serverAlone: noServer)
        switch signer {
        case let card as IDCardSigner:
            let pin2 = try? IDCardPINs.retryCounter(.pin2, reader: card.readerName)
            let puk = try? IDCardPINs.retryCounter(.puk, reader: card.readerName)
            properties.keyLeaves = "no: made on the card's chip, which has no command that reads a private key out"
            properties.unlock = "PIN2, checked by the card"
            properties.triesBeforeLock = counter(pin2, what: "PIN2")
            properties.unblock =
                "the PUK, on the card (\(counter(puk, what: "PUK"))); after that only the card's issuer"
            properties.deviceAlone =
                "with the card alone: \(pin2.map { "\($0.triesLeft)" } ?? "a few") guesses at PIN2, then the card blocks it"
        case let token as PKCS11Signer:
            let protection = token.keyProtection()
            if let protection {
                if protection.sensitive && !protection.extractable {
                    properties.keyLeaves =
                        protection.neverExtractable
                        ? "no: sensitive and never extractable (made on the token)"
                        : "no: sensitive and not extractable now, but it once was (imported, or made extractable)"
                } else {
                    let why = [
                        protection.sensitive ? nil : "not sensitive", protection.extractable ? "extractable" : nil,
                    ].compactMap { $0 }
                    properties.keyLeaves = "yes: the token lets the key out (\(why.joined(separator: ", ")))"
                }
                properties.unlock =
                    (protection.pinPad ? "the PIN, on the token's own PIN pad" : "the user PIN, checked by the token")
                    + (protection.pinForEverySignature ? ", for every signature" : ", once per session")
                properties.triesBeforeLock =
                    "as the token counts them (PKCS#11 tells no number)"
                    + (protection.pinFlags.isEmpty
                        ? "; no warning flag now" : "; now: \(protection.pinFlags.joined(separator: ", "))")
            } else {
                properties.keyLeaves = "the token did not say (CKA_SENSITIVE, CKA_EXTRACTABLE unreadable)"
                properties.unlock = "the user PIN, checked by the token"
                properties.triesBeforeLock = "as the token counts them (PKCS#11 tells no number)"
            }
            properties.unblock = "the token's security officer (SO PIN)"
            properties.deviceAlone =
                "with the token alone: PIN guesses until the token locks the PIN"
                + (protection.map { $0.sensitive && !$0.extractable } == false
                    ? "; the key can be taken out once logged in" : "")
        case let split as ThresholdSigner:
            properties.keyLeaves =
                "never whole: the key is x₁·x₂; this device holds x₁ sealed under the PIN, the co-signer x₂ under its server key, and neither share leaves its side"
            properties.unlock =
                "the PIN on this device, hardened by the co-signer (an OPRF it counts), and the co-signer's part in every signature"
            properties.triesBeforeLock =
                (split.coSignerPINTries.map { "\($0) at the co-signer, then it blocks the key" }
                    ?? "the co-signer's allowance")
                + "; \(ShareKeyStore.maximumWrongPINs) on this device, then its sealed share is deleted"
            properties.unblock = "no one: enroll again with a new code from the co-signer's operator"
            properties.deviceAlone =
                "with this device alone (its folder copied): nothing; every PIN guess goes through the co-signer, which counts it"
            properties.serverAlone =
                "with the co-signer alone: nothing; its share signs nothing without the device's, and its PIN evaluations reveal no PIN"
        case is MobileIDSigner:
            properties.keyLeaves = "no: on the SIM card's chip"
            properties.unlock = "PIN2, typed on the phone"
            properties.triesBeforeLock = "as the SIM counts them (the service tells tamga no number)"
            properties.unblock = "the operator (a new SIM or PUK)"
            properties.deviceAlone = "with the phone alone: PIN2 guesses until the SIM blocks it"
            properties.serverAlone =
                "with the service alone: it starts signatures, and the person must confirm each on the phone"
        case is SmartIDSigner:
            properties.keyLeaves = "no: split between the phone app and SK's server"
            properties.unlock = "PIN2, typed in the Smart-ID app"
            properties.triesBeforeLock = "as the service counts them (it tells tamga no number)"
            properties.unblock = "the person, in the Smart-ID app (a new account)"
            properties.deviceAlone = "with the phone alone: PIN2 guesses, counted by the service"
            properties.serverAlone =
                "with the service alone: it holds one part of the key; the person must confirm each signature on the phone"
        default:
            properties.keyLeaves = "yes: a key file can be copied (it is encrypted with its password)"
            properties.unlock = "the file's password"
            properties.triesBeforeLock = "none: a copied file can be guessed at offline without limit"
            properties.unblock = "nothing to unblock"
            properties.deviceAlone = "with the file alone: every signature, once its password is guessed"
        }
        return properties
    }

    /// "3 tries, 3 left now" from a card's retry counter.
    private static func counter(_ counter: RetryCounter?, what: String) -> String {
        guard let counter else { return "the card did not say" }
        let maximum = counter.maximumTries.map { "\($0) tries, " } ?? ""
        if counter.isBlocked { return maximum + "blocked now" }
        return maximum + "\(counter.triesLeft) left now" + (counter.isActive ? "" : " (\(what) not activated yet)")
    }
}
