internal import CPCSC
import FoundationEssentials
import Glibc
import TamgaSupport

/// The loop behind `ReaderMonitor`: one context, used only by the watching thread.
///
/// Cancelling is a flag checked between bounded 500 ms waits, not `SCardCancel`: in pcsc-lite
/// 1.9.9 (Debian 12) an `SCardCancel` from another thread that lands as a bounded
/// `SCardGetStatusChange` times out races inside the client library (LudovicRousseau/PCSC#160)
/// and crashed `tamga readers --wait` here about one run in two. No other thread ever calls
/// into libpcsclite with this context, so the race cannot happen; a cancel takes effect within
/// half a second.
// unchecked: `context` is used only by the watching thread; `cancelled` is behind `lock`
final class SCardWatcher: @unchecked Sendable {
    private let context: SCardContextHandle
    private static let pnp = "\\\\?PnP?\\Notification"

    init() throws { context = try SCardContextHandle() }

    private let lock = Lock()
    nonisolated(unsafe) private var cancelled = false  // guarded by `lock`

    /// Stops the loop at the end of the current bounded wait (at most 500 ms).
    func cancel() {
        lock.withLock { cancelled = true }
    }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    /// Blocks, calling `emit` for each change, until cancelled or pcscd goes away.
    func run(_ emit: (ReaderEvent) -> Void) throws {
        var known: [String: Reader] = [:]
        // The last full event state per reader, card-event counter (high word) included, so
        // pcscd wakes us only for new changes.
        var raw: [String: DWORD] = [:]
        var names = try context.readerNames()
        for reader in try names.isEmpty ? [] : context.states(of: names) {
            known[reader.name] = reader
            emit(ReaderEvent(kind: .present, reader: reader))
        }
        while !isCancelled {
            // Watch every reader, plus the PnP pseudo-reader; pcsc-lite keeps the reader count
            // in the high word of its state.
            let watched = names + [Self.pnp]
            let cNames = watched.map { strdup($0)! }
            defer { cNames.forEach { free($0) } }
            var states = cNames.enumerated().map { index, name -> SCARD_READERSTATE in
                var state = SCARD_READERSTATE()
                state.szReader = UnsafePointer(name)
                if index < names.count {
                    state.dwCurrentState = raw[names[index]] ?? DWORD(SCARD_STATE_UNAWARE)
                } else {
                    state.dwCurrentState = DWORD(names.count << 16)
                }
                return state
            }
            // A bounded wait, as pcsc_scan does: an INFINITE wait was not always woken for vpcd
            // readers here, and the re-listing below also catches readers the PnP entry missed.
            let result = SCardReturnCode(SCardGetStatusChange(context.context, 500, &states, DWORD(states.count)))
            if result.unsigned == UInt32(truncatingIfNeeded: SCARD_E_CANCELLED) { throw PCSCError.cancelled }
            let timedOut = result.unsigned == UInt32(truncatingIfNeeded: SCARD_E_TIMEOUT)
            if result.unsigned == UInt32(truncatingIfNeeded: SCARD_E_UNKNOWN_READER)
                || result.unsigned == UInt32(truncatingIfNeeded: SCARD_E_READER_UNAVAILABLE)
            {
                // A reader vanished between listing and waiting: list again below.
            } else if !timedOut {
                try result.check("SCardGetStatusChange")
            }
            // Card changes in readers that stay.
            for (index, name) in names.enumerated() where !timedOut {
                let state = states[index]
                guard UInt32(truncatingIfNeeded: state.dwEventState) & UInt32(SCARD_STATE_CHANGED) != 0 else {
                    continue
                }
                raw[name] = state.dwEventState & ~DWORD(SCARD_STATE_CHANGED)
                let atr = withUnsafeBytes(of: state.rgbAtr) {
                    Array($0.prefix(Int(min(state.cbAtr, DWORD(MAX_ATR_SIZE)))))
                }
                let new = Reader(
                    name: name,
                    state: ReaderState(
                        rawValue: UInt32(truncatingIfNeeded: state.dwEventState) & 0xFFFF & ~UInt32(SCARD_STATE_CHANGED)
                    ), atr: atr)
                guard !new.state.contains(.unavailable) else { continue }  // reported as removed below
                let old = known[name]
                known[name] = new
                let wasPresent = old?.state.contains(.present) ?? false, isPresent = new.state.contains(.present)
                if isPresent && !wasPresent {
                    emit(ReaderEvent(kind: .cardInserted, reader: new))
                } else if !isPresent && wasPresent {
                    emit(ReaderEvent(kind: .cardRemoved, reader: new))
                } else if old?.state != new.state {
                    emit(ReaderEvent(kind: .stateChanged, reader: new))
                }
            }
            // Readers attached or detached.
            let current = try context.readerNames()
            if Set(current) != Set(names) {
                for gone in names where !current.contains(gone) {
                    raw[gone] = nil
                    if let reader = known.removeValue(forKey: gone) {
                        emit(ReaderEvent(kind: .readerRemoved, reader: reader))
                    }
                }
                let added = current.filter { !names.contains($0) }
                if !added.isEmpty {
                    for reader in try context.states(of: added) {
                        known[reader.name] = reader
                        emit(ReaderEvent(kind: .readerAdded, reader: reader))
                    }
                }
                names = current
            }
        }
        throw PCSCError.cancelled
    }
}
