import Foundation
import FuzzSupport
import TamgaCore

@testable import ASiC

/// A signature file's XML and its whole verification, against a fixed container (one data
/// file, signed once at start by the fixture key): the input replaces the signature's XML.
let container: Container = {
    let source = FuzzSupport.scratch.appendingPathComponent("data.txt")
    let target = FuzzSupport.scratch.appendingPathComponent("fixed.asice").path
    do {
        try Data("fuzzing the verifier\n".utf8).write(to: source)
        let made = Container(creatingAt: target)
        try made.addDataFile(path: source.path, name: "data.txt", mediaType: "text/plain")
        let key = try Data(contentsOf: FuzzSupport.fixture("pki/ec-p256.key.pem"))
        let signer = try SoftwareSigner(key: key, certificate: FuzzSupport.certificate("pki/ec-p256.cert.pem"))
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            _ = try? await made.sign(with: signer, options: SignatureOptions(profile: .B))  // writes the container
            semaphore.signal()
        }
        semaphore.wait()
        let opened = try Container(openingAt: target)
        _ = opened.validate()  // fills the digest cache now, not during an input (it would look like a leak)
        return opened
    } catch {
        FileHandle.standardError.write(Data("fuzz: cannot make the fixed container: \(error)\n".utf8))
        exit(2)
    }
}()
let trust = TrustStore(
    anchors: [FuzzSupport.certificate("pki/root.cert.pem")],
    intermediates: [FuzzSupport.certificate("pki/issuing-ca.cert.pem")])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignatureXML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    container.replaceSignatures([
        SignatureFile(name: "META-INF/signatures0.xml", data: Data(FuzzSupport.bytes(data, size)), entry: nil)
    ])
    _ = container.validate(ValidationOptions(trust: trust, minimumProfile: .B))
    container.replaceSignatures([])  // keep no input beyond its run
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzSignatureXML_main`.
@_cdecl("FuzzSignatureXML_main")
public func FuzzSignatureXMLMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzSignatureXML)
}
