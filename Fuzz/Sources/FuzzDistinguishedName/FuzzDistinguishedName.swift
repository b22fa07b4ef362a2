import Foundation
import FuzzSupport
import TamgaCore

/// RFC 4514 names as XAdES `X509IssuerName` carries them: any bytes through the parser, and
/// whatever parses compared with a real certificate's issuer (RFC 4518 preparation included).
let certificate = FuzzSupport.certificate("pki/ec-p256.cert.pem")
let issuer = certificate.issuerName

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDistinguishedName(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    if let name = try? DistinguishedName(rfc4514UTF8: bytes) {
        _ = name.matches(issuer)
        _ = issuer.matches(name)
    }
    // The same text as IssuerSerial would carry it, and as a serial number.
    let text = String(decoding: bytes, as: UTF8.self)
    _ = certificate.compareIssuerSerial(issuerName: text, serialNumber: text)
    _ = certificate.compareIssuerSerialV2(der: Data(bytes))
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzDistinguishedName_main`.
@_cdecl("FuzzDistinguishedName_main")
public func FuzzDistinguishedNameMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt
{
    FuzzSupport.run(argc, argv, fuzzDistinguishedName)
}
