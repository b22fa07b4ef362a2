internal import CMicroHTTPD
import FoundationEssentials
import Glibc

/// systemd's readiness protocol (sd_notify(3), `Type=notify`): one datagram of `KEY=value`
/// lines to the AF_UNIX socket named by `NOTIFY_SOCKET`. Written here rather than linked from
/// libsystemd, since it is one `sendto` and the library would be one more dependency for a
/// message that systemd documents as a stable protocol. Without `NOTIFY_SOCKET` (not started by
/// systemd, or `Type=simple`) nothing is sent.
public enum ServiceManagerNotification {
    /// Sends `state` (such as `READY=1\nSTATUS=listening on …`) to the service manager, if one
    /// asked for it. Returns whether a manager was told; a socket that cannot be reached is not an
    /// error of the service's (systemd then times the start out and says so itself).
    @discardableResult
    public static func send(_ state: String, socket path: String?) -> Bool {
        guard let path, !path.isEmpty else { return false }
        // "@name" is an abstract socket: its address starts with a zero byte instead.
        var name = Array(path.utf8)
        if name.first == UInt8(ascii: "@") { name[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard name.count < capacity, path.hasPrefix("/") || path.hasPrefix("@") else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in name.enumerated() { raw[index] = byte }
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count + (name.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent == message.count
    }
}
