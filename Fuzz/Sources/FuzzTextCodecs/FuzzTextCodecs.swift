import Foundation
import FuzzSupport
import TamgaCore

/// Hex and base64 of outside fields: any UTF-8 (and invalid UTF-8, repaired) text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTextCodecs(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzSupport.bytes(data, size), as: UTF8.self)
    if let bytes = Hex.bytes(text), Hex.encode(bytes) != text.lowercased() {
        fatalError("hex does not round-trip: \(text)")  // an oracle, not a guard on input
    }
    if let bytes = try? Base64.decode(text), Base64.encode(bytes) != text {
        fatalError("base64 does not round-trip: \(text)")
    }
    _ = try? Base64.decode(text, alphabet: .url, ignoringWhitespace: true)
    // xsd:dateTime as signatures, OCSP reports and trusted lists carry it: what parses must
    // format back to the same instant.
    if let date = XSDDateTime.parse(text), let again = XSDDateTime.parse(XSDDateTime.format(date)),
        abs(again.timeIntervalSince(date)) >= 1
    {
        fatalError("xsd:dateTime does not round-trip: \(text)")  // an oracle, not a guard on input
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzTextCodecs_main`.
@_cdecl("FuzzTextCodecs_main")
public func FuzzTextCodecsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzTextCodecs)
}
