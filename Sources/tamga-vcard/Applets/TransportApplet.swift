/// A test applet for the PC/SC transport rules (no file system, no PINs):
///   any SELECT (INS A4)                   → 9000
///   GET DATA 00 CA 01 00 Le               → 300 bytes (i & 0xFF)
///   GET DATA 00 CA 02 00 Le               → 20 bytes if Le = 20, else 6C14 (wrong length)
///   everything else                       → 6D00
final class TransportApplet: Applet {
    func reset() {}

    func answer(_ apdu: VirtualAPDU) -> CardResponse {
        switch (apdu.ins, apdu.p1p2) {
        case (0xA4, _): return .ok
        case (0xCA, 0x0100): return CardResponse((0..<300).map { UInt8($0 & 0xFF) })
        case (0xCA, 0x0200):
            guard apdu.le == 20 else { return .status(0x6C14) }
            return CardResponse([UInt8](repeating: 0xAB, count: 20))
        default: return .unknownInstruction
        }
    }
}
