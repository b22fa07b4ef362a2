import Foundation
import FuzzSupport
import MobileID

/// The Korean mobile ID's app-to-app messages: envelopes, M200/M400, app links, base64url.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKoreanMobileID(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    if let envelope = try? Envelope(json: Data(bytes)) {
        _ = try? StartResponse(envelope: envelope)
        if let object = try? envelope.object("fuzz") {
            _ = try? M200(object: object)
            _ = try? M400(object: object)
        }
    }
    _ = try? StartRequest(json: Data(bytes))
    _ = try? M200(base64: text)
    _ = try? M400(text: text)
    _ = try? AppLink.parseCall(text)
    _ = try? AppLink.parseCallback(text, clientScheme: "tamga")
    _ = try? Base64URL.decode(text, field: "fuzz")
    _ = TransactionCode.isValid(text)
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzKoreanMobileID_main`.
@_cdecl("FuzzKoreanMobileID_main")
public func FuzzKoreanMobileIDMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzKoreanMobileID)
}
