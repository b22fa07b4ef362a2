// The README's "Use it as a library" snippet, verbatim between the markers: it is compiled
// with every build of the tests (a renamed or changed API breaks the build), and
// ReadmeSnippetTests checks that README.md still shows exactly these lines.
import ASiC
import Foundation
import TamgaCore

/// The names the snippet takes as given: the signer's certificate, any `Signer`, a PKCS#12
/// file's bytes and a trust anchor.
func readmeSnippet(
    cert: Certificate, mySigner: some Signer, p12: Data, root: Certificate
) async throws -> ValidationReport {
    // README BEGIN
    let container = try Container(openingAt: "contract.asice")
    // Two steps, as DigiDoc's prepareSignature / addSignature: hand the digest to any signer.
    let digest = try container.prepareSignature(
        certificate: cert, algorithm: .ecdsaP256SHA256,
        options: SignatureOptions(roles: ["Signer"]))
    let value = try await mySigner.sign(digest: digest)  // raw r‖s for ECDSA
    try await container.addSignature(value)  // checked, then written atomically
    // Or one call with any `Signer`:
    try await container.sign(with: SoftwareSigner(pkcs12: p12, password: SecretBytes(Array("…".utf8))))
    let report = container.validate(ValidationOptions(trust: TrustStore(anchors: [root])))
    // README END
    return report
}
