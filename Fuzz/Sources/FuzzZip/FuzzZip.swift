import ASiC
import Foundation
import FuzzSupport

/// The ZIP reader and the container's structure checks: any bytes as a .asice file. Opening
/// must throw a ContainerError or give a container whose entries read within their limits, and
/// that a naive second reading of the same bytes (SingleReadingOracle: the last end record, the
/// central directory it names, the local headers) reads the same way: what tamga opens has one
/// reading. (Signatures are FuzzSignatureXML's: judging them here would spend the time on crypto.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let path = FuzzSupport.scratch.appendingPathComponent("input.asice").path
    let bytes = FuzzSupport.bytes(data, size)
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return 0 }
    if let container = try? Container(openingAt: path) {
        let oracle = SingleReadingOracle(bytes: bytes)
        let entries = oracle.entries()
        for file in container.dataFiles {
            var delivered: [UInt8] = []
            let read: Bool = (try? container.read(file) { delivered += $0 }) != nil
            _ = try? container.digest(of: file, .sha256)
            guard let entry = entries[file.name] else {
                FileHandle.standardError.write(
                    Data("FuzzZip oracle: tamga lists \(file.name), the central directory does not\n".utf8))
                abort()
            }
            if read, let stored = oracle.storedData(entry), stored != delivered {
                FileHandle.standardError.write(
                    Data("FuzzZip oracle: \(file.name) reads differently from its stored bytes\n".utf8))
                abort()
            }
        }
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzZip_main`.
@_cdecl("FuzzZip_main")
public func FuzzZipMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzZip)
}
