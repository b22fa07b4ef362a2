// sign-and-verify OUT.asice FILE KEY.p12 PASSWORD-FILE ROOT.pem [INTERMEDIATE.pem...]
//
// Packs FILE into a new ASiC-E container, signs it at profile B with the key and certificate of
// a PKCS#12 file, saves it, opens it again and validates it against ROOT (and the intermediates
// given), then prints the verdict. Exit status 0 when the container is VALID, 1 when it is not,
// 2 on a usage or input error. What a program of one's own needs from tamga, and no more.
import ASiC
import Foundation
import TamgaCore

func certificates(_ path: String) throws -> [Certificate] {
    guard let bytes = FileManager.default.contents(atPath: path) else {
        throw CoreError.unreadableFile(path: path, reason: "no such file or not readable")
    }
    return try Certificate.parseAll(pem: bytes)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 5 else {
    FileHandle.standardError.write(
        Data("usage: sign-and-verify OUT.asice FILE KEY.p12 PASSWORD-FILE ROOT.pem [INTERMEDIATE.pem...]\n".utf8))
    exit(2)
}
let (out, file, keyFile, passwordFile, root) = (arguments[0], arguments[1], arguments[2], arguments[3], arguments[4])
do {
    guard let p12 = FileManager.default.contents(atPath: keyFile),
        let passwordText = FileManager.default.contents(atPath: passwordFile)
    else {
        throw CoreError.unreadableFile(path: keyFile, reason: "the key file or the password file cannot be read")
    }
    // The password as a secret: wiped when the signer no longer needs it.
    var password = Array(passwordText.prefix { $0 != UInt8(ascii: "\n") })
    let signer = try SoftwareSigner(pkcs12: p12, password: SecretBytes(consuming: &password))

    let container = Container(creatingAt: out)
    try container.addDataFile(path: file)
    try await container.sign(with: signer, options: SignatureOptions(profile: .B, roles: ["Example"]))

    let trust = TrustStore(
        anchors: try certificates(root), intermediates: try arguments.dropFirst(5).flatMap(certificates))
    let report = try Container(openingAt: out).validate(ValidationOptions(trust: trust, minimumProfile: .B))
    print("\(out): \(report.status.rawValue)")
    for signature in report.signatures {
        print("  \(signature.file): \(signature.status.rawValue), \(signature.signer ?? "no signer")")
        for finding in signature.findings { print("    \(finding.code): \(finding.message)") }
    }
    exit(report.status == .valid || report.status == .warning ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("sign-and-verify: \(error)\n".utf8))
    exit(2)
}
