# tamga — the two commands a new user runs on a fresh Debian 12 machine:
#   make demo   install what is missing, build (release), pack + sign + verify a container
#   make test   install what is missing, build, run the whole test suite
# Both need root for apt-get (or the packages already installed).

SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PREFIX ?= /usr/local
# Release builds link the Swift runtime and Foundation statically: a CLI started per command
# saves about 5 ms of dynamic loading each time (bench/readers-listing.sh).
RELEASE := -c release --static-swift-stdlib
DESTDIR ?=

# Debian packages: build (C libraries behind the .systemLibrary targets) and checks
# (the independent verifiers the tests run: openssl, xmlsec1, pyasice's Python stack).
BUILD_PACKAGES := pkg-config libssl-dev libxml2-dev zlib1g-dev libpcsclite-dev libp11-kit-dev libgmp-dev libsqlite3-dev libmicrohttpd-dev openssl
CHECK_PACKAGES := xmlsec1 curl openssl iproute2 faketime pcscd vsmartcard-vpcd softhsm2 opensc gnutls-bin python3 python3-venv python3-lxml python3-cryptography python3-pyscard python3-asn1crypto python3-oscrypto \
                  util-linux
BENCH_PACKAGES := time zip coreutils opensc pcsc-tools gcc softhsm2

.PHONY: demo test build release deps test-deps bench vectors clean

deps:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)

test-deps: deps
	@scripts/ensure-packages.sh $(CHECK_PACKAGES)
	@scripts/setup-pyasice.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE)

demo: test-deps release
	@scripts/demo.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)/tamga"

test: test-deps
	$(SWIFT) build --build-tests
	@echo "== checking the independent checkers and the test services themselves"
	@scripts/test-crosscheck.sh
	@scripts/test-services-selftest.sh
	@echo "== swift test"
	$(SWIFT) test --skip-build --disable-swift-testing

bench: release
	@scripts/ensure-packages.sh $(BENCH_PACKAGES)
	@bench/container-speed.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)/tamga"
	@bench/signing-phases.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)/tamga"
	@bench/readers-listing.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)/tamga"
	@bench/card-signing.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)"
	@bench/pkcs11-signing.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)"
	@bench/threshold.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)"
	@bench/cosigner.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)"

# Rewrites Fixtures/threshold/{transcript,primitives}.json (new safe primes, recorded tapes): only on purpose.
vectors: deps
	$(SWIFT) build --build-tests
	TAMGA_REGENERATE_VECTORS=1 $(SWIFT) test --skip-build --disable-swift-testing --filter GoldenVectorTests/testRecordedTranscriptReplaysByteForByte
	TAMGA_REGENERATE_VECTORS=1 $(SWIFT) test --skip-build --disable-swift-testing --filter PrimitiveVectorTests

clean:
	rm -rf .build
