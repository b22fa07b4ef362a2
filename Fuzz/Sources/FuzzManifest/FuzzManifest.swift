import Foundation
import FuzzSupport

@testable import ASiC

/// META-INF/manifest.xml as any bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = try? Manifest(data: Data(FuzzSupport.bytes(data, size)), mimetype: Container.mimetype)
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzManifest_main`.
@_cdecl("FuzzManifest_main")
public func FuzzManifestMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzManifest)
}
