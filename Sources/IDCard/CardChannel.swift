import PCSC

/// What `IDCardSession` needs from a card connection. `CardConnection` is the real one; tests
/// wrap it to add what the virtual reader cannot do (a PIN pad).
public protocol CardChannel: AnyObject {
    var readerName: String { get }
    func withTransaction<T>(_ body: () throws -> T) throws -> T
    func transmit(_ command: CommandAPDU) throws -> ResponseAPDU
    /// Sends a command carrying a secret and wipes `command` afterwards.
    func transmitWiping(_ command: inout [UInt8]) throws -> ResponseAPDU
    /// PC/SC part 10 features: tag → control code.
    func readerFeatures() -> [UInt8: UInt32]
    func control(_ code: UInt32, _ input: [UInt8]) throws -> [UInt8]
}

extension CardConnection: CardChannel {}
