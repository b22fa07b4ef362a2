import Foundation
import FuzzSupport
import TamgaCore
import TamgaSupport

@testable import RemoteSigning

/// Mobile-ID and Smart-ID answers: any bytes as a JSON object, through what the client reads
/// from a service's reply (session id, base64 fields, certificates, the signature check, end
/// results, status meanings, RFC 9457 problem bodies, the v3 reply checks). The client is never
/// connected; its URL only has to be one a configuration takes (a host name, since host names
/// are checked for the pins).
let client = try! RemoteServiceClient(
    service: "Smart-ID",
    configuration: RemoteServiceConfiguration(
        url: URL(string: "https://fuzz.invalid/v3") ?? URL(fileURLWithPath: "/"),
        relyingPartyUUID: "00000000-0000-0000-0000-000000000000", relyingPartyName: "fuzz"),
    statusMeaning: SmartIDEndResult.meaning)
let certificate = FuzzSupport.certificate("pki/ec-p256.cert.pem")
let digest = Digest.compute(.sha256, over: Data("fuzz".utf8))
let smartID = try! SmartIDSigner(
    country: "EE", identityCode: "40504040001", documentNumber: "PNOEE-40504040001-DEM0-Q",
    certificate: FuzzSupport.certificate("pki/rsa-2048.cert.pem"), client: client, apiVersion: .v3,
    showVerificationCode: { _ in })

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    _ = SmartIDEndResult.error(text, interaction: text)
    _ = MobileIDSigner.displayText(text)
    _ = TextLimits.fitted(text, utf16Units: 60)
    _ = TextLimits.quoted(text)
    if let problem = ProblemDetails(Data(bytes)) { _ = problem.said }
    // The parser the client reads replies with (numbers as Int when integral, as saltLength is).
    guard let object = (try? JSON.parse(bytes)) as? [String: Any] else { return 0 }
    _ = try? client.sessionID(object)
    _ = try? client.bytes(object["value"], "value")
    _ = try? client.certificate(object["cert"], "cert")
    if let signature = object["signature"] as? [String: Any] {
        _ = try? client.checkSignature(signature, algorithm: .ecdsaP256SHA256, certificate: certificate, digest: digest)
    }
    _ = try? smartID.checkEnd(object)
    _ = try? smartID.checkV3Reply(
        object, hashName: "SHA-256", size: 32, offered: ["displayTextAndPIN", "confirmationMessage"])
    _ = try? smartID.checkReturnedCertificate((object["cert"] as? [String: Any])?["value"], required: true)
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzRemoteMessages_main`.
@_cdecl("FuzzRemoteMessages_main")
public func FuzzRemoteMessagesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzRemoteMessages)
}
