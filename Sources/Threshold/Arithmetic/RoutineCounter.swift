#if DEBUG
import FoundationEssentials
import Glibc
import TamgaSupport

/// Debug builds only: how many times a routine ran in this process. `BigInt` counts its
/// `mpz_powm_sec` calls, so a test can see that a secret (a nonce's inverse) really took the
/// constant-time routine and not `mpz_invert` or `mpz_powm`; release builds have no counter.
final class RoutineCounter: @unchecked Sendable {  // unchecked: `lock` guards `value`
    private let lock = Lock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func increment() { lock.withLock { value += 1 } }
}
#endif
