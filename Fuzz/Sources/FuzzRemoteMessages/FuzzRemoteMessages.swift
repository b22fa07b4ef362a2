import Foundation
import FuzzSupport
@testable import RemoteSigning
import TamgaCore

/// Mobile-ID and Smart-ID answers: any bytes as a JSON object, through what the client reads
/// from a service's reply (session id, base64 fields, certificates, the signature check, end
/// results, status meanings).
let client = RemoteServiceClient(service: "Smart-ID", configuration: RemoteServiceConfiguration(
    url: URL(fileURLWithPath: "/"), relyingPartyUUID: "00000000-0000-0000-0000-000000000000", relyingPartyName: "fuzz"),
    statusMeaning: SmartIDSigner.meaning)
let certificate = FuzzSupport.certificate("pki/ec-p256.cert.pem")
let digest = Digest.compute(.sha256, over: Data("fuzz".utf8))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    _ = SmartIDSigner.endResult(text, service: "Smart-ID", who: "PNOEE-1")
    _ = MobileIDSigner.displayText(text)
    guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else { return 0 }
    _ = try? client.sessionID(object)
    _ = try? client.bytes(object["value"], "value")
    _ = try? client.certificate(object["cert"], "cert")
    if let signature = object["signature"] as? [String: Any] {
        _ = try? client.checkSignature(signature, algorithm: .ecdsaP256SHA256, certificate: certificate, digest: digest)
    }
    if let result = (object["result"] as? [String: Any])?["endResult"] as? String {
        _ = SmartIDSigner.endResult(result, service: "Smart-ID", who: "PNOEE-1")
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzRemoteMessages_main`.
@_cdecl("FuzzRemoteMessages_main")
public func FuzzRemoteMessagesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzRemoteMessages)
}
