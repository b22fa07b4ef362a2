import FoundationEssentials
import Glibc
import TamgaSupport
import Threshold

/// What `cosigner serve` says while it makes the server's ring-Pedersen parameters on its first
/// start (two 1024-bit safe primes: tens of seconds, in which it would otherwise say nothing):
/// on a terminal one self-overwriting line with the prime being searched for and the
/// candidates tried; otherwise (a log, a journal) a plain line when it starts, when each prime
/// is found, and when it is done.
final class ParameterProgress {
    private let terminal: Terminal
    private let started = Date()
    private var lastDrawn = Date.distantPast

    init(terminal: Terminal) { self.terminal = terminal }

    private var elapsed: String { NumberText.fixed(Date().timeIntervalSince(started), digits: 1) + " s" }

    /// Makes the parameters, reporting as it goes.
    func make(random: RandomSource) throws -> RingPedersenSecret {
        terminal.error(
            "tamga: first start: making the server's ring-Pedersen parameters (two 1024-bit safe primes; made once and stored in the database, since clients pin them; this takes a while)"
        )
        let secret = try RingPedersenSecret.generate(random: random) { [self] event in report(event) }
        if terminal.interactiveErrors { terminal.status("") }
        terminal.error("tamga: ring-Pedersen parameters made in \(elapsed)")
        return secret
    }

    private func report(_ event: RingPedersenSecret.SafePrimeProgress) {
        switch event {
        case .candidate(let prime, let tried):
            // At most ten redraws a second: OpenSSL calls back for every candidate.
            guard terminal.interactiveErrors, Date().timeIntervalSince(lastDrawn) >= 0.1 else { return }
            lastDrawn = Date()
            terminal.status("tamga: safe prime \(prime) of 2: \(tried) candidates tried, \(elapsed)")
        case .found(let prime):
            if terminal.interactiveErrors { terminal.status("") }
            terminal.error("tamga: safe prime \(prime) of 2 found (\(elapsed))")
        }
    }
}
