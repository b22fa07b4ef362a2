import Dispatch
import FoundationEssentials
import Glibc
import TamgaSupport

/// Watches readers being attached and detached and cards being inserted and removed, with
/// `SCardGetStatusChange` (including the `\\?PnP?\Notification` pseudo-reader) on a thread of
/// its own, as an `AsyncThrowingStream`. The stream starts with one `.present` event per
/// reader, then delivers changes in the order pcscd reports them. `cancel()` (or cancelling
/// the consuming task) ends it within half a second (see `SCardWatcher` for why not `SCardCancel`).
// unchecked: only the watching thread calls into PC/SC; cancel() sets a locked flag
public final class ReaderMonitor: @unchecked Sendable {
    private let watcher: SCardWatcher
    /// Signalled when the watching thread has left libpcsclite for good.
    private let finished = DispatchSemaphore(value: 0)

    public init() throws {
        watcher = try SCardWatcher()
    }

    public func events() -> AsyncThrowingStream<ReaderEvent, Error> {
        AsyncThrowingStream { continuation in
            let watcher = self.watcher
            let finished = self.finished
            continuation.onTermination = { _ in watcher.cancel() }
            do {
                try DetachedThread.start(name: "pcsc-watch") {
                    defer { finished.signal() }
                    do {
                        try watcher.run { continuation.yield($0) }
                        continuation.finish()
                    } catch PCSCError.cancelled {
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
            } catch {
                finished.signal()
                continuation.finish(throwing: error)
            }
        }
    }

    public func cancel() { watcher.cancel() }

    /// Cancels and waits until the watching thread is out of PC/SC, so the process can exit or
    /// release the context safely. Call once, after `events()` was used.
    ///
    /// The wait must outlast the thread's last bounded call (500 ms, plus a reader listing) even
    /// on a loaded machine: libpcsclite's destructor frees its context list at `exit`, and a
    /// thread still inside `SCardGetStatusChange` then crashes the process (the likely cause of
    /// one SIGSEGV of `readers --wait` with the earlier two-second limit, while five builds ran).
    /// 30 s only guards against a pcscd that hangs.
    public func stop() {
        watcher.cancel()
        _ = finished.wait(timeout: .now() + 30)
    }
}
