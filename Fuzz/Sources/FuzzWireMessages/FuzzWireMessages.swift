import Foundation
import FuzzSupport
import Threshold

/// The threshold protocol's JSON messages: any bytes as a JSON object, through every decoder
/// (the first byte picks which, so each gets whole objects to chew on); the same bytes as the
/// co-signer's wrapped server key (`TokenKeyWrapper.parse`); and the co-signer's stored session
/// and enrollment states (first byte 0xFF).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    // The co-signer's token-wrapped server key as its database holds it (any bytes a row may hold).
    _ = TokenKeyWrapper.parse(bytes)
    // Selector 0xFF: the rest is a co-signer's stored session or enrollment state (the bytes a
    // database row opens to), through both binary decoders.
    if bytes.first == 0xFF {
        _ = try? SigningSessionState(storageBytes: Array(bytes.dropFirst()))
        _ = try? PendingEnrollment(storageBytes: Array(bytes.dropFirst()))
        return 0
    }
    guard let selector = bytes.first,
        let json = (try? JSONSerialization.jsonObject(with: Data(bytes.dropFirst()))) as? [String: Any]
    else { return 0 }
    let object = json.compactMapValues { $0 as? String }
    let lists = json.compactMapValues { $0 as? [String] }
    switch selector % 9 {
    case 0: _ = try? WireFormat.decodeEnrollInitRequest(object)
    case 1: _ = try? WireFormat.decodeEnrollInitResponse(object, lists)
    case 2: _ = try? WireFormat.decodeEnrollCompleteRequest(object, lists)
    case 3: _ = try? WireFormat.decodeEnrollCompleteResponse(object)
    case 4: _ = try? WireFormat.decodeSignCommitRequest(object)
    case 5: _ = try? WireFormat.decodeSignCommitResponse(object)
    case 6: _ = try? WireFormat.decodeSignProveRequest(object)
    case 7: _ = try? WireFormat.decodeSignProveResponse(object)
    default: _ = try? WireFormat.decodeSignFinishRequest(object)
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzWireMessages_main`.
@_cdecl("FuzzWireMessages_main")
public func FuzzWireMessagesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzWireMessages)
}
