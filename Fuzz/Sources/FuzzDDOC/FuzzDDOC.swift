@_spi(Testing) import ASiC
import Foundation
import FuzzSupport

/// DigiDoc XML: any bytes as a .ddoc file. Opening must throw a ContainerError or give a DDOC
/// whose data files read within their sizes and whose validation returns a report (the DDOC
/// trust set's certificates, the scanner, libxml2 on the start tags and signatures, the
/// canonical digests, the OCSP and certificate parsers all see the input). Base64 content is
/// hashed in chunks of 1 KB, not 256 KB: an input of a few KB takes the two-thread read-ahead
/// path, with its hand-over at every chunk boundary, and the start tags are read first without
/// libxml2 (`DigiDocStartTag`, confirmed by libxml2 after). The oracle for both: the same file
/// read in one chunk, on one thread, with libxml2 alone, must open or fail alike (the same error
/// code) and give the same verdicts and findings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDDOC(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let path = FuzzSupport.scratch.appendingPathComponent("input.ddoc").path
    guard FileManager.default.createFile(atPath: path, contents: Data(FuzzSupport.bytes(data, size))) else { return 0 }
    Container.ddocChunkSize = 1_024
    Container.ddocReadsStartTagsWithoutLibXML2 = true
    let chunked = opened(path)
    Container.ddocChunkSize = 1 << 40
    Container.ddocReadsStartTagsWithoutLibXML2 = false
    let whole = opened(path)
    guard chunked.outcome == whole.outcome else {
        FileHandle.standardError.write(
            Data(
                "FuzzDDOC: in 1 KB chunks, tags read first without libxml2: \(chunked.outcome); in one, libxml2 alone: \(whole.outcome)\n"
                    .utf8))
        abort()
    }
    guard let container = chunked.container else { return 0 }
    for file in container.dataFiles {
        var count: UInt64 = 0
        if (try? container.read(file) { count += UInt64($0.count) }) != nil, container.kind == .ddoc, count != file.size
        {
            FileHandle.standardError.write(
                Data("FuzzDDOC: \(file.name) read \(count) bytes, its size says \(file.size)\n".utf8))
            abort()
        }
    }
    return 0
}

/// Opens and validates: the container, and what came of it (the error code, or the verdicts and
/// findings of the document and of each signature).
private func opened(_ path: String) -> (container: Container?, outcome: String) {
    let container: Container
    do {
        container = try Container(openingAt: path)
    } catch {
        return (nil, "refused: \((error as? ContainerError)?.code ?? "\(type(of: error))")")
    }
    let report = container.validate(ValidationOptions())
    let signatures = report.signatures.map { "\($0.status) \($0.findings.map(\.code))" }
    return (
        container,
        "\(report.status) \(report.findings.map(\.code)) \(signatures) \(container.dataFiles.map { "\($0.name) \($0.size)" })"
    )
}

/// SwiftPM links an executable target's entry point as `FuzzDDOC_main`.
@_cdecl("FuzzDDOC_main")
public func FuzzDDOCMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzDDOC)
}
