/// Sits between the reader link and an applet: answers power and ATR control messages, resets
/// the applet on power-off and reset, and in T=0 mode returns response data the T=0 way (61xx,
/// then GET RESPONSE in pieces of at most Le bytes).
final class CardSession {
    let atr: [UInt8]
    let applet: Applet
    let t0: Bool
    private var pending: [UInt8] = []

    init(atr: [UInt8], applet: Applet, t0: Bool) {
        self.atr = atr
        self.applet = applet
        self.t0 = t0
    }

    /// The bytes to send back for one message, or nil when none is due.
    func handle(_ message: VPCDLink.Message) -> [UInt8]? {
        switch message {
        case .atrRequest: return atr
        case .powerOff, .reset:
            applet.reset()
            pending = []
            return nil
        case .powerOn, .unknownControl: return nil
        case .apdu(let bytes):
            guard let apdu = VirtualAPDU(bytes) else { return CardResponse.wrongLength.bytes }
            return respond(to: apdu).bytes
        }
    }

    private func respond(to apdu: VirtualAPDU) -> CardResponse {
        if t0 && apdu.ins == 0xC0 && apdu.cla == 0x00 {
            guard !pending.isEmpty else { return .conditionsNotSatisfied }
            let count = min(pending.count, apdu.le ?? 256)
            let data = Array(pending.prefix(count))
            pending.removeFirst(count)
            return CardResponse(data, sw: pending.isEmpty ? 0x9000 : 0x6100 | UInt16(min(pending.count, 256) & 0xFF))
        }
        pending = []
        let response = applet.answer(apdu)
        guard t0, !response.data.isEmpty, response.sw == 0x9000 else { return response }
        pending = response.data
        return .status(0x6100 | UInt16(min(pending.count, 256) & 0xFF))
    }
}
