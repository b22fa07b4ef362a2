/// The order a person expects of file names (`signatures2.xml` before `signatures10.xml`): runs
/// of ASCII digits compared by their value, everything else by its lower-cased scalars. What
/// `localizedStandardCompare` gave for the names containers use, without ICU's collation.
public enum NaturalOrder {
    /// Whether `left` sorts before `right`; names equal in this order fall back to their bytes,
    /// so the order is total and a sort is stable across runs.
    public static func precedes(_ left: String, _ right: String) -> Bool {
        let a = Array(left.lowercased().unicodeScalars), b = Array(right.lowercased().unicodeScalars)
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if isDigit(a[i]), isDigit(b[j]) {
                let startA = i, startB = j
                while i < a.count, isDigit(a[i]) { i += 1 }
                while j < b.count, isDigit(b[j]) { j += 1 }
                // Compare the values without converting (a run may be longer than any integer):
                // leading zeros dropped, then the longer run is larger, then digit by digit.
                let runA = a[startA..<i].drop { $0 == "0" }, runB = b[startB..<j].drop { $0 == "0" }
                if runA.count != runB.count { return runA.count < runB.count }
                if let (x, y) = zip(runA, runB).first(where: { $0 != $1 }) { return x.value < y.value }
                continue
            }
            if a[i] != b[j] { return a[i].value < b[j].value }
            i += 1
            j += 1
        }
        if (a.count - i) != (b.count - j) { return (a.count - i) < (b.count - j) }
        return Array(left.utf8).lexicographicallyPrecedes(Array(right.utf8))
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x30 && scalar.value <= 0x39 }
}
