import Foundation
import FuzzSupport
import TamgaCore

@testable import ASiC

/// ASiC-S archive manifests (`META-INF/ASiCArchiveManifest*.xml`, ETSI EN 319 162-1) and the
/// time-mark nonce's DigestInfo: any bytes through both readers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchiveManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(FuzzSupport.bytes(data, size))
    _ = try? ArchiveManifest(name: "META-INF/ASiCArchiveManifest.xml", data: bytes)
    _ = try? DigestInfo(der: bytes)
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzArchiveManifest_main`.
@_cdecl("FuzzArchiveManifest_main")
public func FuzzArchiveManifestMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzArchiveManifest)
}
