@_spi(Testing) import ASiC
import Foundation
import FuzzSupport

/// DDOC start tags read without libxml2 (`DigiDocStartTag`): any bytes as a `DataFile` tag (or a
/// `SignedDoc` one when they start so). The quick reading must never trap, and a tag it takes must
/// read as libxml2 reads it — the same element, namespace, attribute values and canonical forms —
/// whenever libxml2 reads it at all (where libxml2 refuses it, `DigiDocDocument` reads the file
/// again with libxml2 alone, which FuzzDDOC's oracle covers). Far faster than FuzzDDOC, so the
/// quick reading gets its own millions of executions.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDDOCStartTag(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    let name = bytes.starts(with: Array("<SignedDoc".utf8)) ? "SignedDoc" : "DataFile"
    if let difference = DigiDocStartTagCheck.difference(bytes, name: name), !difference.isEmpty {
        FileHandle.standardError.write(Data("FuzzDDOCStartTag: \(difference)\n".utf8))
        abort()
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzDDOCStartTag_main`.
@_cdecl("FuzzDDOCStartTag_main")
public func FuzzDDOCStartTagMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzDDOCStartTag)
}
