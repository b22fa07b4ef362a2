import ASiC
import Foundation
import FuzzSupport

/// The ZIP reader and the container's structure checks: any bytes as a .asice file. Opening
/// must throw a ContainerError or give a container whose entries read within their limits.
/// (Signatures are FuzzSignatureXML's: judging them here would spend the time on crypto.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let path = FuzzSupport.scratch.appendingPathComponent("input.asice").path
    guard FileManager.default.createFile(atPath: path, contents: Data(FuzzSupport.bytes(data, size))) else { return 0 }
    if let container = try? Container(openingAt: path) {
        for file in container.dataFiles {
            try? container.read(file) { _ in }
            _ = try? container.digest(of: file, .sha256)
        }
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzZip_main`.
@_cdecl("FuzzZip_main")
public func FuzzZipMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzZip)
}
