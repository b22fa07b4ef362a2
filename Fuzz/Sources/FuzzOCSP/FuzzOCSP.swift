import Foundation
import FuzzSupport
import TamgaCore

/// An OCSP response as any DER: parsing, the status of a fixed certificate, the signature.
let signerCertificate = FuzzSupport.certificate("pki/ec-p256.cert.pem")
let issuer = FuzzSupport.certificate("pki/issuing-ca.cert.pem")
let root = FuzzSupport.certificate("pki/root.cert.pem")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOCSP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let response = try? OCSPResponse(der: Data(FuzzSupport.bytes(data, size))) else { return 0 }
    _ = response.producedAt
    _ = response.responderCertificates
    _ = response.status(of: signerCertificate, issuer: issuer)
    if let time = response.producedAt {
        _ = response.verifySignature(anchors: [root, issuer], intermediates: [], at: time, byListing: false)
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzOCSP_main`.
@_cdecl("FuzzOCSP_main")
public func FuzzOCSPMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzOCSP)
}
