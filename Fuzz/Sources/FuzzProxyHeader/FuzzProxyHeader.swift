import Foundation
import FuzzSupport

@testable import HTTPService

/// What a trusted proxy's connection starts with (the PROXY protocol v2 header, read by the
/// co-signer's gate before libmicrohttpd sees the connection), and the `--trusted-proxy` text.
/// Any answer is fine, a trap is not; and the answers must agree with each other:
/// - a header taken fits in the bytes read and in `maximumLength`, is taken the same from
///   exactly its own bytes, and any shorter cut of them asks for more;
/// - "needs N" asks for more than it has and never past `maximumLength`;
/// - an address range that parses holds its own network and prints as text that parses back to it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProxyHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    // Half the inputs start with the signature, so that the parser's body is reached.
    let input =
        bytes.first.map { $0 & 1 == 0 } == true
        ? ProxyProtocolHeader.signature + bytes.dropFirst() : Array(bytes.dropFirst())
    switch try? ProxyProtocolHeader.parse(input) {
    case .header(let header)?:
        guard header.length <= input.count, header.length <= ProxyProtocolHeader.maximumLength,
            header.length >= ProxyProtocolHeader.fixedLength
        else {
            fatalError("a header of \(header.length) bytes taken from \(input.count)")
        }
        guard case .header(let again)? = try? ProxyProtocolHeader.parse(Array(input.prefix(header.length))),
            again == header
        else {
            fatalError("the header's own bytes do not give the same header")
        }
        for cut in [0, ProxyProtocolHeader.fixedLength - 1, header.length - 1] where cut < header.length {
            guard case .needs(let needed)? = try? ProxyProtocolHeader.parse(Array(input.prefix(cut))), needed > cut
            else {
                fatalError("a cut of \(cut) bytes of a \(header.length)-byte header does not ask for more")
            }
        }
    case .needs(let needed)?:
        guard needed > input.count, needed <= ProxyProtocolHeader.maximumLength else {
            fatalError("needs \(needed) with \(input.count) read")
        }
    case nil:
        break
    }
    let text = String(decoding: bytes.prefix(64), as: UTF8.self)
    if let range = AddressRange(parsing: text) {
        guard range.contains(range.network) else { fatalError("\(range) does not hold its own network") }
        guard AddressRange(parsing: range.description) == range else { fatalError("\(range) does not parse back") }
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzProxyHeader_main`.
@_cdecl("FuzzProxyHeader_main")
public func FuzzProxyHeaderMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzProxyHeader)
}
