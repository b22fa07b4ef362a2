# tamga — the two commands a new user runs on a fresh Debian 12 machine:
#   make demo   install what is missing, build (release), pack + sign + verify a container
#   make test   install what is missing, build, run the whole test suite
# Both need root for apt-get (or the packages already installed).

SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PREFIX ?= /usr/local
# Release builds start like a C tool (bench/readers-listing.sh measures them against pcsc_scan):
# - the Swift runtime and FoundationEssentials linked statically (about 5 ms of dynamic loading);
# - libstdc++ too, which the Swift runtime needs (0.3 ms of every start to load and relocate):
#   .build/static-libstdcxx/libstdc++.so is a linker script naming libstdc++.a, found before the
#   system's by -L; the static copy's symbols are not exported (--exclude-libs ALL), so ICU's
#   own libstdc++, loaded with it, is untouched;
# - lld with packed relative relocations (DT_RELR, read by glibc 2.36): the binary's 43,000
#   relocations in 9 KB instead of 1 MB;
# - no $ORIGIN run path (no library is looked for beside the binary) and no exported symbols
#   (the dynamic loader and dladdr search a table of none instead of 4,000);
# - generic types' metadata through direct accessors, not demangled from their names at run
#   time with each conformance looked up in the binary's 4,000 records (20% of the instructions
#   of `readers --json`, 3% of its time).
# - the functions the short commands run at start placed side by side (scripts/startup-order.txt,
#   made by scripts/make-startup-order.sh; our modules compiled with one section per function
#   for it): 312 -> 291 page faults for --version, 0.1 ms when the binary comes back from disk;
# Not BIND_NOW (-z now, lintian's hardening-no-bindnow, an information tag): resolving all 410
# of the binary's lazy symbols at start is 20% more instructions for `readers --json` and 2-3%
# of its time, which is the margin of its target (pcsc_scan -r); Debian's own default is lazy.
STATIC_CXX := $(CURDIR)/.build/static-libstdcxx
RELEASE := -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -use-ld=lld \
           -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic -Xlinker -L$(STATIC_CXX) \
           -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
           -Xswiftc -Xfrontend -Xswiftc -function-sections \
           -Xlinker --symbol-ordering-file=$(CURDIR)/scripts/startup-order.txt -Xlinker --no-warn-symbol-ordering
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
DOCDIR ?= $(PREFIX)/share/doc/tamga
# Shell completion, where bash-completion and Debian's zsh look (zsh's own site folder otherwise).
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
# Packaged rules live under /lib/udev (PREFIX=/usr); an administrator's under /etc/udev.
UDEVDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/udev/rules.d,/etc/udev/rules.d)
# The co-signer's systemd unit (installed, not enabled).
SYSTEMDUNITDIR ?= /lib/systemd/system
# make install CONFIGURATION=debug installs the debug build (the install check in make test).
CONFIGURATION ?= release
BUILD_FLAGS = $(if $(filter debug,$(CONFIGURATION)),,$(RELEASE))

# Debian packages: build (C libraries behind the .systemLibrary targets) and checks
# (the independent verifiers the tests run: openssl, xmlsec1, pyasice's Python stack).
BUILD_PACKAGES := pkg-config libssl-dev libxml2-dev zlib1g-dev libpcsclite-dev libp11-kit-dev libgmp-dev libsqlite3-dev libpq-dev libmicrohttpd-dev libicu-dev openssl
CHECK_PACKAGES := xmlsec1 curl openssl iproute2 faketime gdb procps pcscd vsmartcard-vpcd softhsm2 opensc gnutls-bin postgresql python3 python3-venv python3-lxml python3-cryptography python3-pyscard python3-asn1crypto python3-oscrypto \
                  util-linux groff-base zsh bash-completion haproxy systemd lintian dpkg-dev binutils man-db chromium unzip libarchive-tools minizip
# What `make demo` runs, and no more (not chromium, lintian, haproxy or PostgreSQL: the tests'):
# pcscd with vpcd for the virtual card, SoftHSM and pkcs11-tool for the token, and the
# independent checkers (xmlsec1, openssl, pyasice's Python stack).
DEMO_PACKAGES := openssl xmlsec1 pcscd vsmartcard-vpcd softhsm2 opensc python3 python3-venv python3-lxml python3-cryptography \
                 python3-asn1crypto python3-oscrypto
BENCH_PACKAGES := time zip pigz coreutils opensc pcsc-tools gcc softhsm2 hyperfine wrk haproxy

.PHONY: demo test build release deps demo-deps test-deps format bench vectors clean install uninstall fuzz deb

deps:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)

demo-deps: deps
	@scripts/ensure-packages.sh $(DEMO_PACKAGES)
	@scripts/setup-pyasice.sh

test-deps: deps
	@scripts/ensure-packages.sh $(CHECK_PACKAGES)
	@scripts/setup-pyasice.sh
	@scripts/setup-xmlsec13.sh

build: deps
	$(SWIFT) build

release: deps $(STATIC_CXX)/libstdc++.so
	$(SWIFT) build $(RELEASE)

$(STATIC_CXX)/libstdc++.so:
	@archive=$$(gcc -print-file-name=libstdc++.a); [ -f "$$archive" ] || { echo "no libstdc++.a (apt-get install libstdc++-12-dev)" >&2; exit 1; }; \
	  mkdir -p $(STATIC_CXX) && echo "INPUT($$archive)" > $@

# tamga_<version>_<arch>.deb from the release build (scripts/make-deb.sh); prints its path.
deb: release
	@scripts/ensure-packages.sh dpkg-dev binutils
	@scripts/make-deb.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)/tamga" .build

# Only the two programs the demo runs (tamga and the virtual card), not tamga-bench.
demo: demo-deps $(STATIC_CXX)/libstdc++.so
	$(SWIFT) build $(RELEASE) --product tamga
	$(SWIFT) build $(RELEASE) --product tamga-vcard
	@scripts/demo.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)/tamga"

test: test-deps
	@scripts/test-all.sh "$(SWIFT)"

# Rewrites the Swift sources to .swift-format's style (make test checks it with lint --strict).
format:
	$(SWIFT) format --in-place --recursive --parallel Sources Tests Plugins Fuzz/Sources Examples Package.swift Fuzz/Package.swift

# Every libFuzzer target of Fuzz/ for FUZZ_SECONDS each (default 60); FUZZ_TARGETS picks some.
FUZZ_SECONDS ?= 60
fuzz: test-deps
	$(SWIFT) build
	@scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

bench: release
	@scripts/ensure-packages.sh $(BENCH_PACKAGES)
	@bench/run-all "$$($(SWIFT) build $(RELEASE) --show-bin-path)"

# Rewrites Fixtures/threshold/{transcript,primitives}.json (new safe primes, recorded tapes): only on purpose.
vectors: deps
	$(SWIFT) build --build-tests
	TAMGA_REGENERATE_VECTORS=1 $(SWIFT) test --skip-build --disable-swift-testing --filter GoldenVectorTests/testRecordedTranscriptReplaysByteForByte
	TAMGA_REGENERATE_VECTORS=1 $(SWIFT) test --skip-build --disable-swift-testing --filter PrimitiveVectorTests

# The tamga binary, the udev rules (udev/README.md: when they are needed), the co-signer's
# systemd unit (README: "Running the co-signer as a service"), the manual page made
# from the built-in help (tamga help --man), and the reference documents.
install: deps $(STATIC_CXX)/libstdc++.so
	$(SWIFT) build $(BUILD_FLAGS) --product tamga
	install -D -m 0755 "$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/tamga" "$(DESTDIR)$(BINDIR)/tamga"
	install -D -m 0644 udev/60-tamga-tokens.rules "$(DESTDIR)$(UDEVDIR)/60-tamga-tokens.rules"
	install -d -m 0755 "$(DESTDIR)$(SYSTEMDUNITDIR)"
	for unit in tamga-cosigner.service tamga-validation.service; do \
	  sed 's|/usr/bin/tamga|$(BINDIR)/tamga|' systemd/$$unit > "$(DESTDIR)$(SYSTEMDUNITDIR)/$$unit" && chmod 0644 "$(DESTDIR)$(SYSTEMDUNITDIR)/$$unit" || exit 1; \
	done
	install -d -m 0755 "$(DESTDIR)$(MANDIR)" "$(DESTDIR)$(DOCDIR)"
	"$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/tamga" help --man > "$(DESTDIR)$(MANDIR)/tamga.1"
	chmod 0644 "$(DESTDIR)$(MANDIR)/tamga.1"
	install -d -m 0755 "$(DESTDIR)$(BASHCOMPDIR)" "$(DESTDIR)$(ZSHCOMPDIR)"
	"$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/tamga" help --completion bash > "$(DESTDIR)$(BASHCOMPDIR)/tamga"
	"$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/tamga" help --completion zsh > "$(DESTDIR)$(ZSHCOMPDIR)/_tamga"
	chmod 0644 "$(DESTDIR)$(BASHCOMPDIR)/tamga" "$(DESTDIR)$(ZSHCOMPDIR)/_tamga"
	install -m 0644 README.md docs/cli.md docs/cosigner-api.md docs/siva.md "$(DESTDIR)$(DOCDIR)/"
	install -m 0644 udev/README.md "$(DESTDIR)$(DOCDIR)/udev.md"
	@if [ -z "$(DESTDIR)" ]; then echo "installed. For the udev rules to apply now: udevadm control --reload && udevadm trigger --subsystem-match=usb --action=change"; fi

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/tamga" "$(DESTDIR)$(UDEVDIR)/60-tamga-tokens.rules" "$(DESTDIR)$(MANDIR)/tamga.1" "$(DESTDIR)$(BASHCOMPDIR)/tamga" "$(DESTDIR)$(ZSHCOMPDIR)/_tamga" "$(DESTDIR)$(SYSTEMDUNITDIR)/tamga-cosigner.service" "$(DESTDIR)$(SYSTEMDUNITDIR)/tamga-validation.service"
	rm -f "$(DESTDIR)$(DOCDIR)/README.md" "$(DESTDIR)$(DOCDIR)/cli.md" "$(DESTDIR)$(DOCDIR)/cosigner-api.md" "$(DESTDIR)$(DOCDIR)/siva.md" "$(DESTDIR)$(DOCDIR)/udev.md"
	-rmdir "$(DESTDIR)$(DOCDIR)" 2>/dev/null

clean:
	rm -rf .build
