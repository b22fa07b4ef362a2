/// A command APDU as the card sees it (ISO 7816-4 cases 1–4, short and extended).
struct VirtualAPDU {
    let cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8
    let data: [UInt8]
    /// The expected response length; nil when the command has no Le (case 1 and 3).
    let le: Int?

    var p1p2: UInt16 { UInt16(p1) << 8 | UInt16(p2) }

    /// Nil for a malformed encoding (the card answers 6700).
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 4 else { return nil }
        cla = bytes[0]
        ins = bytes[1]
        p1 = bytes[2]
        p2 = bytes[3]
        let body = Array(bytes.dropFirst(4))
        switch body.count {
        case 0:
            data = []
            le = nil
        case 1:
            data = []
            le = body[0] == 0 ? 256 : Int(body[0])
        case _ where body[0] != 0:
            let lc = Int(body[0])
            if body.count == 1 + lc {
                data = Array(body[1...])
                le = nil
            } else if body.count == 2 + lc {
                data = Array(body[1...lc])
                le = body[lc + 1] == 0 ? 256 : Int(body[lc + 1])
            } else {
                return nil
            }
        default:
            // Extended length: 00 then two bytes.
            guard body.count >= 3 else { return nil }
            let n = Int(body[1]) << 8 | Int(body[2])
            if body.count == 3 {
                data = []
                le = n == 0 ? 65536 : n
                return
            }
            if body.count == 3 + n {
                data = Array(body[3...])
                le = nil
            } else if body.count == 5 + n {
                data = Array(body[3..<(3 + n)])
                let l = Int(body[3 + n]) << 8 | Int(body[4 + n])
                le = l == 0 ? 65536 : l
            } else {
                return nil
            }
        }
    }
}

/// A response: data and a status word.
struct CardResponse {
    var data: [UInt8] = []
    var sw: UInt16

    init(_ data: [UInt8] = [], sw: UInt16 = 0x9000) {
        self.data = data
        self.sw = sw
    }
    static func status(_ sw: UInt16) -> CardResponse { CardResponse([], sw: sw) }

    var bytes: [UInt8] { data + [UInt8(sw >> 8), UInt8(sw & 0xFF)] }

    static let ok = status(0x9000)
    static let wrongLength = status(0x6700)
    static let securityNotSatisfied = status(0x6982)
    static let blocked = status(0x6983)
    static let referenceDataUnusable = status(0x6984)
    static let conditionsNotSatisfied = status(0x6985)
    static let wrongData = status(0x6A80)
    static let notFound = status(0x6A82)
    static let wrongP1P2 = status(0x6A86)
    static let referenceNotFound = status(0x6A88)
    static let offsetOutOfRange = status(0x6B00)
    static let unknownInstruction = status(0x6D00)
    static let unknownClass = status(0x6E00)
}

/// Anything that answers APDUs. Applets keep their own state (selection, PIN verification).
protocol Applet: AnyObject {
    func answer(_ apdu: VirtualAPDU) -> CardResponse
    /// Power-off or reset: verification and selection states are lost, counters are not.
    func reset()
}
