/// The personal data a virtual card carries (IDEMIA EstEID keeps it in EFs 5001–5008 of DF 5000).
struct CardHolder {
    var surname: String
    var givenNames: String
    var sex: String
    var citizenship: String
    var birth: String
    var personalCode: String
    var documentNumber: String
    var expiry: String

    /// EF 5001 … 5008 in order.
    var idemiaPersonalData: [String] {
        [surname, givenNames, sex, citizenship, birth, personalCode, documentNumber, expiry]
    }
}
