import Foundation
import TamgaTestSupport
import XCTest

/// `udev/*.rules`: the file's rules evaluated on device property sets by a small evaluator of
/// the subset of udev syntax the file uses (==, !=, =, GOTO/LABEL, shell globs with fnmatch):
/// which devices end up marked as smart-card readers, and that nothing changes modes or groups.
/// (Debian 12's udevadm has no `verify`; when a newer one is present it checks the syntax too.)
final class UdevRulesTests: XCTestCase {
    struct Assignment { let key: String, op: String, value: String }

    static let rulesFile = TestEnvironment.repository.appendingPathComponent("udev/60-tamga-tokens.rules").path

    /// Each rule line as its comma-separated `KEY OP "VALUE"` parts.
    static func parse(_ text: String) throws -> [[Assignment]] {
        let pattern = try NSRegularExpression(
            pattern: #"^\s*([A-Z_]+(?:\{[A-Za-z_]+\})?)\s*(==|!=|\+=|:=|=)\s*"([^"]*)"\s*$"#)
        return try text.split(separator: "\n").map(String.init).filter {
            !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }.map { line in
            try line.split(separator: ",").map { part in
                let text = String(part)
                guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else {
                    throw NSError(
                        domain: "udev", code: 1,
                        userInfo: [NSLocalizedDescriptionKey: "cannot parse \(text) in \(line)"])
                }
                let group = { (index: Int) in String(text[Range(match.range(at: index), in: text)!]) }
                return Assignment(key: group(1), op: group(2), value: group(3))
            }
        }
    }

    /// Runs the rules over one device's properties (keys as udev spells them: ACTION, SUBSYSTEM,
    /// ENV{…}, ATTR{…}); the properties afterwards.
    static func evaluate(_ rules: [[Assignment]], _ device: [String: String]) -> [String: String] {
        var properties = device
        var skipTo: String? = nil
        for rule in rules {
            if let label = skipTo {
                if rule.count == 1, rule[0].key == "LABEL", rule[0].value == label { skipTo = nil }
                continue
            }
            let matches = rule.filter { $0.op == "==" || $0.op == "!=" }.allSatisfy { test in
                let value = properties[test.key] ?? ""
                let hit = fnmatch(test.value, value, 0) == 0
                return test.op == "==" ? hit : !hit
            }
            guard matches else { continue }
            for action in rule where action.op == "=" || action.op == "+=" || action.op == ":=" {
                if action.key == "GOTO" {
                    skipTo = action.value
                } else if action.key != "LABEL" {
                    properties[action.key] = action.value
                }
            }
        }
        return properties
    }

    func testReadersAndRutokensAreMarkedAndNothingElse() throws {
        let rules = try Self.parse(String(contentsOfFile: Self.rulesFile, encoding: .utf8))
        func marked(_ device: [String: String]) -> Bool {
            Self.evaluate(rules, device)["ENV{ID_SMARTCARD_READER}"] == "1"
        }
        let usb = ["ACTION": "add", "SUBSYSTEM": "usb", "ENV{DEVTYPE}": "usb_device"]
        let ccidReader = usb.merging(["ATTR{idVendor}": "04e6", "ENV{ID_USB_INTERFACES}": ":0b0000:"]) { $1 }
        let rutokenECP = usb.merging(["ATTR{idVendor}": "0a89", "ENV{ID_USB_INTERFACES}": ":0b0000:"]) { $1 }
        let rutokenS = usb.merging(["ATTR{idVendor}": "0a89", "ENV{ID_USB_INTERFACES}": ":ff0000:"]) { $1 }
        let mouse = usb.merging(["ATTR{idVendor}": "046d", "ENV{ID_USB_INTERFACES}": ":030102:"]) { $1 }
        // YubiKey: HID + CCID
        let composite = usb.merging(["ATTR{idVendor}": "1050", "ENV{ID_USB_INTERFACES}": ":030101:0b0000:"]) { $1 }
        XCTAssertTrue(marked(ccidReader), "a CCID reader")
        XCTAssertTrue(marked(rutokenECP), "Rutoken ECP (CCID)")
        XCTAssertTrue(marked(rutokenS), "Rutoken S (vendor class, by vendor id)")
        XCTAssertTrue(marked(composite), "a token with a CCID interface among others")
        XCTAssertFalse(marked(mouse), "a mouse is left alone")
        XCTAssertFalse(marked(ccidReader.merging(["ACTION": "remove"]) { $1 }), "remove events are skipped")
        XCTAssertFalse(
            marked(ccidReader.merging(["ENV{DEVTYPE}": "usb_interface"]) { $1 }), "only the device, not each interface")
        XCTAssertFalse(marked(rutokenS.merging(["SUBSYSTEM": "hidraw"]) { $1 }), "only the usb subsystem")
    }

    func testNoModesOwnersOrGroupsAndTheFileSortsBeforeUaccess() throws {
        let text = try String(contentsOfFile: Self.rulesFile, encoding: .utf8)
        let rules = try Self.parse(text)
        let keys = Set(rules.flatMap { $0.map(\.key) })
        XCTAssertTrue(keys.isDisjoint(with: ["MODE", "OWNER", "GROUP", "RUN", "PROGRAM"]), "\(keys)")
        let labels = Set(rules.flatMap { $0.filter { $0.key == "LABEL" }.map(\.value) })
        for jump in rules.flatMap({ $0.filter { $0.key == "GOTO" } }) {
            XCTAssertTrue(labels.contains(jump.value), "GOTO \(jump.value) has a LABEL")
        }
        XCTAssertLessThan("60-tamga-tokens.rules", "70-uaccess.rules")
        XCTAssertLessThan("60-tamga-tokens.rules", "73-seat-late.rules")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/udevadm"),
            let help = try? TestEnvironment.run("/usr/bin/udevadm", ["--help"]), help.output.contains("verify")
        {
            let verified = try TestEnvironment.run("/usr/bin/udevadm", ["verify", Self.rulesFile])
            XCTAssertEqual(verified.status, 0, verified.output + verified.error)
        }
    }
}
