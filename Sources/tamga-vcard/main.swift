import Foundation

// tamga-vcard — a virtual smart card for the vsmartcard `vpcd` reader driver, for the tests and
// the demo. pcscd's vpcd listens on PORT (reader.conf DEVICENAME "/dev/null:PORT"); the card
// connects to 127.0.0.1:PORT, which is "inserting" it, and exiting removes it.
//
// Profiles carry a real ATR; idemia, thales and fineid run the ID-card applets (Applets/) with
// the TEST ONLY keys in Fixtures/card/<profile>; rutoken-ecp and unknown (and --applet
// transport) run the transport test applet.
#if canImport(Glibc)
import Glibc
#endif

enum Profile: String, CaseIterable {
    case idemia, thales, finEID = "fineid", rutokenECP = "rutoken-ecp", unknown

    var atr: [UInt8] {
        let hex: String =
            switch self {
            case .idemia: "3BDB960080B1FE451F830012233F536549440F9000F1"
            case .thales: "3BFF9600008031FE438031B85365494464B085051012233F1D"
            case .finEID: "3B7F9600008031B865B08504021B1200F6829000"
            case .rutokenECP: "3B8B015275746F6B656E20445320C1"
            case .unknown: "3B951381018073FF01000B"
            }
        return stride(from: 0, to: hex.count, by: 2).map {
            let start = hex.index(hex.startIndex, offsetBy: $0)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    var hasIDApplet: Bool { [.idemia, .thales, .finEID].contains(self) }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tamga-vcard: \(message)\n".utf8))
    exit(2)
}

let usage = """
    usage: tamga-vcard [--port PORT] [--profile \(Profile.allCases.map(\.rawValue).joined(separator: "|"))] [--t0]
                       [--applet id|transport] [--keys FOLDER] [--state FILE] [--pin2-inactive]
      --keys FOLDER     sign/auth .key.pem and .cert.der (default Fixtures/card/<profile> beside the package)
      --state FILE      keep PIN values and retry counters in FILE across insertions
      --pin2-inactive   Thales: PIN2 still the issuance value, refused until changed once
    Default PINs: PIN1 1234, PIN2 12345 (FinEID 123456), PUK 17258403 — TEST ONLY.
    """

var port: UInt16 = 0x8C7B
var t0 = false
var profile = Profile.idemia
var appletChoice: String?
var keysFolder: URL?
var stateFile: URL?
var pin2Inactive = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--port":
        guard let value = arguments.next(),
            let parsed = value.hasPrefix("0x") ? UInt16(value.dropFirst(2), radix: 16) : UInt16(value)
        else {
            fail("--port takes a TCP port number")
        }
        port = parsed
    case "--profile":
        guard let value = arguments.next(), let chosen = Profile(rawValue: value) else {
            fail("--profile takes one of \(Profile.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        profile = chosen
    case "--t0": t0 = true
    case "--applet":
        guard let value = arguments.next(), ["id", "transport"].contains(value) else {
            fail("--applet takes id or transport")
        }
        appletChoice = value
    case "--keys":
        guard let value = arguments.next() else { fail("--keys takes a folder") }
        keysFolder = URL(fileURLWithPath: value)
    case "--state":
        guard let value = arguments.next() else { fail("--state takes a file") }
        stateFile = URL(fileURLWithPath: value)
    case "--pin2-inactive": pin2Inactive = true
    case "--help":
        print(usage)
        exit(0)
    default: fail("unknown argument \(argument)\n\(usage)")
    }
}

/// Fixtures/card/<profile>, found from this source file's package root (the tests and the demo
/// run the binary from .build inside the checkout).
func defaultKeysFolder(_ profile: Profile) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/card/\(profile.rawValue)")
}

@MainActor func makeApplet() throws -> Applet {
    let useID = appletChoice.map { $0 == "id" } ?? profile.hasIDApplet
    guard useID else { return TransportApplet() }
    guard profile.hasIDApplet else { throw VirtualCardError("profile \(profile.rawValue) has no ID-card applet") }
    let folder = keysFolder ?? defaultKeysFolder(profile)
    let signing = try CardKey(folder: folder, role: "sign"), authentication = try CardKey(folder: folder, role: "auth")
    switch profile {
    case .idemia:
        let holder = CardHolder(
            surname: "TESTCARD IDEMIA", givenNames: "JAAK-KRISTJAN", sex: "M", citizenship: "EST",
            birth: "08.01.1980 EST", personalCode: "38001085718", documentNumber: "AS0012345", expiry: "24.06.2030")
        let state = CardState(defaults: IDEMIAApplet.defaultPINs(), file: stateFile)
        return IDEMIAApplet(signingKey: signing, authenticationKey: authentication, holder: holder, state: state)
    case .thales, .finEID:
        let layout: ThalesApplet.Layout = profile == .thales ? .estEID : .finEID
        let state = CardState(defaults: layout.defaultPINs(pin2Inactive: pin2Inactive), file: stateFile)
        return ThalesApplet(layout: layout, signingKey: signing, authenticationKey: authentication, state: state)
    default:
        throw VirtualCardError("unreachable")
    }
}

// Started by test runners from threads that block every signal (libdispatch workers); the
// mask is inherited, and a blocked SIGTERM would leave this card in its reader until SIGKILL.
var unblocked = sigset_t()
sigemptyset(&unblocked)
sigprocmask(SIG_SETMASK, &unblocked, nil)
signal(SIGTERM, SIG_DFL)
signal(SIGPIPE, SIG_IGN)
do {
    let session = CardSession(atr: profile.atr, applet: try makeApplet(), t0: t0)
    let link = try VPCDLink(port: port)
    FileHandle.standardOutput.write(Data("inserted into 127.0.0.1:\(port) profile \(profile.rawValue)\n".utf8))
    while let message = link.receive() {
        if let answer = session.handle(message), !link.send(answer) { break }
    }
} catch {
    fail("\(error)")
}
