import Foundation
import FuzzSupport
import TamgaCore

/// An RFC 3161 time-stamp token as any DER: parsing, genTime, imprint, verification.
let root = FuzzSupport.certificate("pki/root.cert.pem")
let imprint = Digest.compute(.sha256, over: Data("fuzz".utf8))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimeStamp(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let token = try? TimeStampToken(der: Data(FuzzSupport.bytes(data, size))) else { return 0 }
    _ = token.genTime
    _ = token.imprintAlgorithm
    _ = token.certificates
    _ = token.verify(imprint: imprint, trust: TrustStore(anchors: [root]))
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzTimeStamp_main`.
@_cdecl("FuzzTimeStamp_main")
public func FuzzTimeStampMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzTimeStamp)
}
