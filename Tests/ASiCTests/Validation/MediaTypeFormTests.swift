import XCTest

@testable import ASiC

/// DigiDoc's check of a DataObjectFormat's media type, `^[\w]*/[\w\-\+\.]*$`, without a regular
/// expression engine: `\w` as Unicode regular expressions have it.
final class MediaTypeFormTests: XCTestCase {
    func testTheFormDigiDocWarnsAbout() {
        for good in [
            "text/plain", "application/vnd.etsi.asic-e+zip", "application/octet-stream", "image/svg+xml", "x_y/z.z",
            "äpp/ı", "/", "text/", "/plain", "a1/b2",
        ] {
            XCTAssertTrue(SignatureValidator.hasMediaTypeForm(good), good)
        }
        for bad in [
            "text/plain; charset=utf-8", "text", "a/b/c", "text/pl ain", "te-xt/plain", "text/plain!", "",
            "text/\u{202E}lp",
        ] {
            XCTAssertFalse(SignatureValidator.hasMediaTypeForm(bad), bad)
        }
    }
}
