import Foundation
import FuzzSupport
import TamgaCore

@testable import ASiC

/// An ETSI trusted list or list of lists as any bytes, checked against the test signers (so
/// that mutations of the seeds get past the signature to the content).
let signers = [
    "tsl/tsl-signer.cert.pem", "tsl/lotl/lotl-signer.cert.pem", "tsl/lotl/ee-tsl-signer.cert.pem",
    "tsl/lotl/lv-tsl-signer.cert.pem",
]
.map(FuzzSupport.certificate)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTrustedList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    // The parse-and-check itself: the public initialiser's per-process memo would keep every
    // list that verifies, which is its purpose and not a leak, but looks like one here.
    if let list = try? TrustedList(checking: Data(FuzzSupport.bytes(data, size)), signers: signers) {
        _ = list.isExpired(at: Date())
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzTrustedList_main`.
@_cdecl("FuzzTrustedList_main")
public func FuzzTrustedListMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzTrustedList)
}
