import FuzzSupport

@testable import PCSC

/// BER-TLV as cards answer it, and response APDUs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBERTLV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    if let tlvs = BERTLV.parse(bytes) {
        for tlv in tlvs where tlv.isConstructed { _ = BERTLV.parse(tlv.value) }
    }
    _ = BERTLV.find(0x5F20, in: bytes)
    _ = ResponseAPDU(bytes: bytes)
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzBERTLV_main`.
@_cdecl("FuzzBERTLV_main")
public func FuzzBERTLVMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzBERTLV)
}
