import ASiC
import Foundation
import FuzzSupport
import TamgaCore

/// An ETSI trusted list as any bytes, checked against the test list signer.
let signer = FuzzSupport.certificate("tsl/tsl-signer.cert.pem")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTrustedList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = try? TrustedList(data: Data(FuzzSupport.bytes(data, size)), signers: [signer])
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzTrustedList_main`.
@_cdecl("FuzzTrustedList_main")
public func FuzzTrustedListMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzTrustedList)
}
