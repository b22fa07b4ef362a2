internal import CGMP
import TamgaCore

#if canImport(Glibc)
import Glibc
#endif

/// An arbitrary-precision integer with value semantics over GMP. Each value owns heap storage
/// (one `mpz_t` behind a pointer: GMP's one-element array type cannot be passed as both input
/// and output from Swift), copied before any mutation, and wiped before it is freed: these
/// numbers hold Paillier factors, key shares and nonces. GMP itself is set up once to wipe
/// memory it frees or moves away from.
// unchecked: shared storage is never mutated; every operation writes fresh storage
public struct BigInt: @unchecked Sendable {
    final class Storage {
        let pointer = UnsafeMutablePointer<__mpz_struct>.allocate(capacity: 1)
        init() {
            _ = BigInt.wipingAllocator
            cgmp_init(pointer)
        }
        deinit {
            cgmp_wipe(pointer)
            cgmp_clear(pointer)
            pointer.deallocate()
        }
    }

    /// Installs GMP's wiping allocation functions once, before the first number exists.
    static let wipingAllocator: Void = cgmp_install_wiping_allocator()

    let storage: Storage
    var pointer: UnsafeMutablePointer<__mpz_struct> { storage.pointer }

    /// A fresh number written by one GMP call.
    init(writing write: (UnsafeMutablePointer<__mpz_struct>) -> Void) {
        storage = Storage()
        write(storage.pointer)
    }

    public init(_ value: UInt) { self.init { cgmp_set_ui($0, value) } }
    public init(_ value: Int) {
        precondition(value >= 0, "BigInt(Int) takes non-negative values")
        self.init(UInt(value))
    }

    /// From big-endian bytes (unsigned).
    public init<C: Collection>(bytes: C) where C.Element == UInt8 {
        var array = Array(bytes)
        self.init { target in array.withUnsafeBufferPointer { cgmp_import_be(target, $0.baseAddress, $0.count) } }
        // The copy may hold a secret (a share, a nonce): wipe it.
        array.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
    }

    /// From a hexadecimal string (no prefix, ASCII digits only, odd length allowed); nil when
    /// it is not hex.
    public init?(hex: String) {
        guard !hex.isEmpty, let bytes = Hex.bytes(hex.utf8.count % 2 == 0 ? hex : "0" + hex) else { return nil }
        self.init(bytes: bytes)
    }

    public static let zero = BigInt(UInt(0))
    public static let one = BigInt(UInt(1))

    /// Big-endian bytes without leading zeros (empty for zero).
    public var bytes: [UInt8] {
        guard cgmp_sgn(pointer) != 0 else { return [] }
        var out = [UInt8](repeating: 0, count: (cgmp_sizeinbase2(pointer) + 7) / 8)
        let count = out.withUnsafeMutableBufferPointer { cgmp_export_be($0.baseAddress, pointer) }
        return Array(out.prefix(count))
    }

    /// Big-endian bytes left-padded to `width`; nil when the number does not fit.
    public func bytes(width: Int) -> [UInt8]? {
        let raw = bytes
        guard raw.count <= width else { return nil }
        return [UInt8](repeating: 0, count: width - raw.count) + raw
    }

    public var hex: String { bytes.isEmpty ? "0" : Hex.encode(bytes) }

    public var bitWidth: Int { cgmp_sgn(pointer) == 0 ? 0 : cgmp_sizeinbase2(pointer) }
    public var isZero: Bool { cgmp_sgn(pointer) == 0 }
    public var isNegative: Bool { cgmp_sgn(pointer) < 0 }
    public var isOdd: Bool { cgmp_odd_p(pointer) != 0 }
    public func bit(_ index: Int) -> Bool { cgmp_tstbit(pointer, mp_bitcnt_t(index)) != 0 }

    public static func + (a: BigInt, b: BigInt) -> BigInt { BigInt { cgmp_add($0, a.pointer, b.pointer) } }
    public static func - (a: BigInt, b: BigInt) -> BigInt { BigInt { cgmp_sub($0, a.pointer, b.pointer) } }
    public static func * (a: BigInt, b: BigInt) -> BigInt { BigInt { cgmp_mul($0, a.pointer, b.pointer) } }
    /// Floor division.
    public static func / (a: BigInt, b: BigInt) -> BigInt {
        precondition(!b.isZero, "division by zero")
        return BigInt { cgmp_fdiv_q($0, a.pointer, b.pointer) }
    }
    public static func + (a: BigInt, b: UInt) -> BigInt { BigInt { cgmp_add_ui($0, a.pointer, b) } }
    public static func - (a: BigInt, b: UInt) -> BigInt { BigInt { cgmp_sub_ui($0, a.pointer, b) } }

    /// The non-negative remainder modulo `m`.
    public func modulo(_ m: BigInt) -> BigInt {
        precondition(!m.isZero, "modulo zero")
        return BigInt { cgmp_mod($0, pointer, m.pointer) }
    }

    /// The inverse modulo `m`, or nil when there is none.
    public func inverse(modulo m: BigInt) -> BigInt? {
        var exists: Int32 = 0
        let result = BigInt { exists = cgmp_invert($0, pointer, m.pointer) }
        return exists != 0 ? result : nil
    }

    public func gcd(_ other: BigInt) -> BigInt { BigInt { cgmp_gcd($0, pointer, other.pointer) } }

    /// Which GMP routine a modular power runs on.
    public enum PowerRoutine: Sendable, Equatable {
        /// `mpz_powm_sec`: the same time and memory accesses for any base and exponent of the
        /// same sizes; for secrets (in the base or the exponent).
        case constantTime
        /// `mpz_powm`: faster, its timing depends on the values; public inputs only.
        case variableTime
    }

    /// The routine `power` uses: constant time when asked and GMP allows it (`mpz_powm_sec`
    /// needs an odd modulus and a positive exponent).
    public static func powerRoutine(exponent: BigInt, modulus: BigInt, secret: Bool) -> PowerRoutine {
        secret && modulus.isOdd && cgmp_sgn(exponent.pointer) > 0 ? .constantTime : .variableTime
    }

    #if DEBUG
    /// The `mpz_powm_sec` calls so far (debug builds: tests check which routine a secret took).
    static let constantTimePowers = RoutineCounter()
    #endif

    /// `mpz_powm_sec`, counted in debug builds.
    private func constantTimePower(_ exponent: BigInt, modulo modulus: BigInt) -> BigInt {
        #if DEBUG
        Self.constantTimePowers.increment()
        #endif
        return BigInt { cgmp_powm_sec($0, pointer, exponent.pointer, modulus.pointer) }
    }

    /// `self^exponent mod modulus`. A secret exponent takes GMP's constant-time `mpz_powm_sec`
    /// (which needs an odd modulus and a positive exponent).
    public func power(_ exponent: BigInt, modulo modulus: BigInt, exponentIsSecret: Bool) -> BigInt {
        if Self.powerRoutine(exponent: exponent, modulus: modulus, secret: exponentIsSecret) == .constantTime {
            return constantTimePower(exponent, modulo: modulus)
        }
        precondition(!exponentIsSecret || exponent.isZero, "a secret exponent needs an odd modulus")
        return BigInt { cgmp_powm($0, pointer, exponent.pointer, modulus.pointer) }
    }

    /// The inverse of a secret (a nonce) modulo an odd prime `p`, as `self^(p−2) mod p` with
    /// `mpz_powm_sec` (Fermat): `mpz_invert` runs a variable-time extended Euclid whose steps
    /// depend on the value. The base is secret here and the exponent public; `mpz_powm_sec`'s
    /// time and memory accesses depend on neither. nil for a multiple of `p` (no inverse).
    /// `p` must be prime (for a composite modulus Fermat's inverse is wrong).
    public func secretInverse(modulo p: BigInt) -> BigInt? {
        let exponent = p - 2
        // Never a silent fall back to mpz_powm: for an even or tiny p there is no constant-time answer.
        guard Self.powerRoutine(exponent: exponent, modulus: p, secret: true) == .constantTime else { return nil }
        let result = constantTimePower(exponent, modulo: p)
        return result.isZero ? nil : result
    }

    /// `self · 2^bits`.
    public func shiftedLeft(_ bits: Int) -> BigInt { BigInt { cgmp_mul_2exp($0, pointer, mp_bitcnt_t(bits)) } }

    /// Miller–Rabin (plus GMP's trial division and Baillie–PSW), `rounds` repetitions.
    public func isProbablePrime(rounds: Int = 40) -> Bool { cgmp_probab_prime_p(pointer, Int32(rounds)) > 0 }

    public func isPerfectSquare() -> Bool { cgmp_perfect_square_p(pointer) != 0 }

    /// `⌊√self⌋` of a non-negative number (Π^fac's bounds are multiples of `√N0`).
    public func squareRoot() -> BigInt {
        precondition(!isNegative, "the square root of a negative number")
        return BigInt { cgmp_sqrt($0, pointer) }
    }

    /// `self mod d` for a machine word.
    public func remainder(dividingBy d: UInt) -> UInt { UInt(cgmp_fdiv_ui(pointer, d)) }

    /// The Jacobi symbol (self / n), n odd.
    public func jacobi(_ n: BigInt) -> Int { Int(cgmp_jacobi(pointer, n.pointer)) }
}

extension BigInt: Equatable, Comparable {
    public static func == (a: BigInt, b: BigInt) -> Bool { cgmp_cmp(a.pointer, b.pointer) == 0 }
    public static func < (a: BigInt, b: BigInt) -> Bool { cgmp_cmp(a.pointer, b.pointer) < 0 }
}

extension BigInt: CustomStringConvertible {
    public var description: String { "0x" + hex }
}
