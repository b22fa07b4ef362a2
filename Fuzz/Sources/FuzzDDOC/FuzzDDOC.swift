@_spi(Testing) import ASiC
import Foundation
import FuzzSupport

/// DigiDoc XML: any bytes as a .ddoc file. Opening must throw a ContainerError or give a DDOC
/// whose data files read within their sizes and whose validation returns a report (the DDOC
/// trust set's certificates, the scanner, libxml2 on the start tags and signatures, the
/// canonical digests, the OCSP and certificate parsers all see the input). Base64 content is
/// hashed in chunks of 1 KB, not 256 KB: an input of a few KB takes the two-thread read-ahead
/// path, with its hand-over at every chunk boundary.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDDOC(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    Container.ddocChunkSize = 1_024
    let path = FuzzSupport.scratch.appendingPathComponent("input.ddoc").path
    guard FileManager.default.createFile(atPath: path, contents: Data(FuzzSupport.bytes(data, size))) else { return 0 }
    guard let container = try? Container(openingAt: path) else { return 0 }
    for file in container.dataFiles {
        var count: UInt64 = 0
        if (try? container.read(file) { count += UInt64($0.count) }) != nil, container.kind == .ddoc, count != file.size {
            FileHandle.standardError.write(Data("FuzzDDOC: \(file.name) read \(count) bytes, its size says \(file.size)\n".utf8))
            abort()
        }
    }
    _ = container.validate(ValidationOptions())
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzDDOC_main`.
@_cdecl("FuzzDDOC_main")
public func FuzzDDOCMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzDDOC)
}
