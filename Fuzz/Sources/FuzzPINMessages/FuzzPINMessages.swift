import Foundation
import FuzzSupport
import Threshold

/// The PIN endpoints' bodies (docs/threshold-pin.md): any bytes as a JSON object through the
/// three decoders (the first byte picks which), and whatever decodes through the OPRF as the
/// co-signer (evaluate a blinded element) and the device (finalize an evaluated one) use it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPINMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    guard let selector = bytes.first,
        let json = (try? JSONSerialization.jsonObject(with: Data(bytes.dropFirst()))) as? [String: Any]
    else { return 0 }
    let key = BigInt(UInt(0x1234_5678_9abc))
    switch selector % 3 {
    case 0:
        if let request = try? PINMessages.decodeEvaluateRequest(json) {
            _ = try? OPRF.evaluate(request.blinded, key: key)
        }
    case 1:
        if let response = try? PINMessages.decodeEvaluateResponse(json) {
            _ = try? OPRF.finalize(Array(bytes.prefix(64)), blind: BigInt(UInt(7)), evaluated: response.evaluated)
        }
    default:
        _ = try? PINMessages.decodeConfirmRequest(json)
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzPINMessages_main`.
@_cdecl("FuzzPINMessages_main")
public func FuzzPINMessagesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzPINMessages)
}
