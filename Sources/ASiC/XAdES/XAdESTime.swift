import FoundationEssentials
import TamgaCore

/// `xsd:dateTime` in UTC without fractions, as the reference writes SigningTime.
enum XAdESTime {
    static func format(_ date: Date) -> String { XSDDateTime.format(date) }
    static func parse(_ text: String) -> Date? { XSDDateTime.parse(text) }
}
