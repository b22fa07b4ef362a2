import Foundation
import TamgaTestSupport

/// What the co-signer command-line tests share: a private copy of the test PKI (the co-signer's
/// CA appends to its index, which the OCSP responder reads), the loopback TSA and OCSP on it,
/// and the `tamga cosigner serve` arguments that certify enrolled keys with its issuing CA.
struct CoSignerFixture {
    let pki: URL
    let services: TestServices
    let database: String

    init(folder: URL) throws {
        pki = folder.appendingPathComponent("pki")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("pki"), toPath: pki.path)
        services = try TestServices(pki: pki.path)
        database = folder.appendingPathComponent("cosigner.db").path
    }

    var serveArguments: [String] {
        [
            "cosigner", "serve", "--db", database, "--ca-cert", pki.appendingPathComponent("issuing-ca.cert.pem").path,
            "--ca-key", pki.appendingPathComponent("issuing-ca.key.pem").path, "--ca-index",
            pki.appendingPathComponent("issuing-ca.index.txt").path,
            "--ocsp", services.url("ocsp").absoluteString,
        ]
    }

    func stop() { services.stop() }
}
