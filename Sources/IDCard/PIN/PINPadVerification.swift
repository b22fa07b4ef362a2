/// PIN entry on the reader's own keypad (PC/SC part 10 `FEATURE_VERIFY_PIN_DIRECT`): the host
/// sends a `PIN_VERIFY_STRUCTURE` holding the VERIFY APDU with an empty template, the reader asks
/// for the PIN, fills the template and sends the APDU; the answer is the card's status word.
enum PINPadVerification {
    /// PC/SC part 10 feature tag of VERIFY_PIN_DIRECT.
    static let verifyPINDirect: UInt8 = 0x06
    /// How long the reader waits for the PIN (seconds); the DigiDoc clients use 90 s.
    static let timeoutSeconds: UInt8 = 90

    /// The `PIN_VERIFY_STRUCTURE` (PC/SC part 10 §2.5.2, little-endian fields) for `format`.
    static func structure(format: PINFormat) -> [UInt8] {
        let apdu: [UInt8] =
            [0x00, 0x20, 0x00, format.reference, UInt8(PINFormat.templateLength)]
            + [UInt8](repeating: format.filler, count: PINFormat.templateLength)
        var bytes: [UInt8] = [
            timeoutSeconds, timeoutSeconds,
            0x82,  // bmFormatString: system units bytes, PIN at byte 0 of the data, left justified, ASCII
            0x00,  // bmPINBlockString: no length field inside the block
            0x00,  // bmPINLengthFormat
            UInt8(format.digits.upperBound), UInt8(format.digits.lowerBound),  // wPINMaxExtraDigit: max, min
            0x02,  // bEntryValidationCondition: validation key pressed
            0x01,  // bNumberMessage
            0x09, 0x04,  // wLangId: English (0x0409)
            0x00,  // bMsgIndex
            0x00, 0x00, 0x00,  // bTeoPrologue
        ]
        let length = UInt32(apdu.count)
        bytes += [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)]
        return bytes + apdu
    }
}
