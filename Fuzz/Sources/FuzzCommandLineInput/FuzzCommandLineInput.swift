import Foundation
import FuzzSupport
import TamgaCore

@testable import TamgaCLI

/// What the command line decodes itself: config.json (any bytes: an error naming the file and
/// key, never a crash), command-line arguments that are not UTF-8 (shown escaped, and the
/// escaping is reversible: a shown name never stands for two byte strings), and signer names
/// as people read them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommandLineInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    _ = try? Configuration(data: Data(bytes), file: "/fuzz/tamga/config.json")
    let shown = RawArguments.shown(bytes)
    precondition(unescaped(shown) == bytes, "the shown form of \(bytes) does not give them back")
    _ = DistinguishedName.readableName(rfc4514: String(decoding: bytes, as: UTF8.self))
    return 0
}

/// The inverse of `RawArguments.shown`: `\\` is a backslash, `\xHH` one byte.
private func unescaped(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var scalars = Array(text.utf8)[...]
    while let byte = scalars.first {
        scalars = scalars.dropFirst()
        guard byte == UInt8(ascii: "\\") else {
            out.append(byte)
            continue
        }
        if scalars.first == UInt8(ascii: "\\") {
            out.append(byte)
            scalars = scalars.dropFirst()
            continue
        }
        let hex = String(decoding: scalars.dropFirst().prefix(2), as: UTF8.self)
        out.append(UInt8(hex, radix: 16) ?? 0)
        scalars = scalars.dropFirst(3)
    }
    return out
}

/// SwiftPM links an executable target's entry point as `FuzzCommandLineInput_main`.
@_cdecl("FuzzCommandLineInput_main")
public func FuzzCommandLineInputMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt
{
    FuzzSupport.run(argc, argv, fuzzCommandLineInput)
}
