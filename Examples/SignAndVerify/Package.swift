// swift-tools-version:6.0
// An example of a package that builds on tamga: it depends on it by path and uses the ASiC and
// TamgaCore libraries to make a container, sign it and verify it. `make test` builds and runs it.
import PackageDescription

let package = Package(
    name: "SignAndVerify",
    dependencies: [.package(name: "tamga", path: "../..")],
    targets: [
        .executableTarget(
            name: "SignAndVerify",
            dependencies: [.product(name: "ASiC", package: "tamga"), .product(name: "TamgaCore", package: "tamga")])
    ]
)
