import FuzzSupport
import TamgaSupport

/// TamgaSupport's JSON parser, which reads every JSON message from outside (co-signer requests,
/// Smart-ID and Mobile-ID answers, configuration files), and the text helpers that take names
/// from containers and URLs: any bytes. Oracles: what parses writes back to text that parses to
/// a tree written the same way (writing is stable after one round); percent-decoding what was
/// encoded gives it back; the natural order of file names is a strict order.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    for fragments in [false, true] {
        guard let tree = try? JSON.parse(bytes, fragmentsAllowed: fragments) else { continue }
        guard let written = try? JSON.data(tree, options: [.prettyPrinted]) else {
            fatalError("a parsed tree cannot be written")  // an oracle, not a guard on input
        }
        guard let again = try? JSON.parse(written, fragmentsAllowed: true),
            let rewritten = try? JSON.data(again, options: [.prettyPrinted]),
            rewritten == written
        else {
            fatalError("JSON does not round-trip: \(String(decoding: written, as: UTF8.self))")
        }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if PercentEncoding.decode(PercentEncoding.encode(text)) != text {
        fatalError("percent-encoding does not round-trip")
    }
    _ = PercentEncoding.decode(text)
    let half = text.index(text.startIndex, offsetBy: text.count / 2)
    let (left, right) = (String(text[..<half]), String(text[half...]))
    if NaturalOrder.precedes(left, right) && NaturalOrder.precedes(right, left) {
        fatalError("natural order is not strict")
    }
    if NaturalOrder.precedes(left, left) { fatalError("natural order is not irreflexive") }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzJSON_main`.
@_cdecl("FuzzJSON_main")
public func FuzzJSONMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzJSON)
}
