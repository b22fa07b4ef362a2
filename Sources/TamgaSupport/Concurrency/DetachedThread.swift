import CPosix
import Glibc

/// Starts `body` on a new detached thread (a pthread) named `name` (at most 15 bytes show in
/// `ps` and `/proc/PID/task/*/comm`): Foundation's `Thread`, without Foundation.
/// Throws when the system cannot make another thread.
public enum DetachedThread {
    public struct StartFailed: Error, CustomStringConvertible {
        public let code: Int32
        public var description: String { "cannot start a thread: \(String(cString: strerror(code)))" }
    }

    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws {
        final class Box {
            let name: String
            let body: @Sendable () -> Void
            init(_ name: String, _ body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
        let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { argument in
                guard let argument else { return nil }
                let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
                _ = cposix_name_this_thread(String(decoding: box.name.utf8.prefix(15), as: UTF8.self))
                box.body()
                return nil
            }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw StartFailed(code: status)
        }
    }

    /// Sleeps this thread for `seconds` (Foundation's `Thread.sleep(forTimeInterval:)`).
    public static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
