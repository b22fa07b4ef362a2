// tamga-bench — in-process timings for bench/ scripts (not installed).
//   tamga-bench card-sign READER RUNS PIN2   time IDCardSigner.sign(digest:) per signature
// Prints one line per run: seconds.
import Foundation
import IDCard
import TamgaCore

struct FixedPIN: PINProvider {
    let pin: String
    func pin(for request: PINRequest) async throws -> SecretBytes { SecretBytes(Array(pin.utf8)) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 4, arguments[0] == "card-sign", let runs = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: tamga-bench card-sign READER RUNS PIN2\n".utf8))
    exit(2)
}
/// The timing loop runs off the main actor, on the executor `sign` itself runs on, so the
/// harness adds no thread hops of its own between two signatures; times are printed at the end.
@concurrent func measure(reader: String, runs: Int, pin: String) async throws -> [Double] {
    let signer = try IDCardSigner(reader: reader, pinProvider: FixedPIN(pin: pin))
    let digest = Digest.compute(signer.algorithm.digest, over: Data("tamga bench".utf8))
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try await signer.sign(digest: digest)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return times
}
for time in try await measure(reader: arguments[1], runs: runs, pin: arguments[3]) { print(time) }
