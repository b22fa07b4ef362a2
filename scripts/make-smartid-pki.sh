#!/usr/bin/env bash
# Issues the TEST ONLY key and certificate of the Smart-ID simulator's v3 demo account
# (scripts/remote-signing-sim.py: PNOEE-40504040001, document number PNOEE-40504040001-DEM0-Q,
# as SK's demo environment names its OK account) from the existing test issuing CA in
# Fixtures/pki, so every other fixture stays valid. The key is RSA 6144, the size of real
# Smart-ID keys. Adds the serial (0x1200) to Fixtures/pki/issuing-ca.index.txt so the test OCSP
# responder answers "good" for it.
#
#   scripts/make-smartid-pki.sh         # -> Fixtures/smart-id/rsa-6144.{key.pem,cert.pem,cert.der}
#
# keyUsage critical nonRepudiation, QC statements QcCompliance + QcSSCD + QcType esign and a
# qualified policy, as Smart-ID's qualified signing certificates carry.
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$SCRIPT_DIR/.."
PKI=Fixtures/pki
OUT=Fixtures/smart-id
START=20250101000000Z
END=20450101000000Z
OCSP_URL=http://127.0.0.1:8788/ocsp
ISSUING_URL=http://127.0.0.1:8788/ca/issuing-ca.cert.der
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cat >"$WORK/ext.cnf" <<EOF2
[ smartid_sign ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, nonRepudiation
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess    = OCSP;URI:$OCSP_URL, caIssuers;URI:$ISSUING_URL
certificatePolicies    = 1.3.6.1.4.1.10015.17.2, 0.4.0.194112.1.2
# QCStatements: QcCompliance, QcSSCD, QcType = esign
1.3.6.1.5.5.7.1.3      = DER:30:29:30:08:06:06:04:00:8E:46:01:01:30:08:06:06:04:00:8E:46:01:04:30:13:06:06:04:00:8E:46:01:06:30:09:06:07:04:00:8E:46:01:06:01
EOF2

source "$SCRIPT_DIR/pki-lib.sh"   # mkca
mkca ca 1200
mkdir -p "$OUT"
key="$OUT/rsa-6144.key.pem"
openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:6144 -out "$key"
openssl req -new -key "$key" -subj "/C=EE/serialNumber=PNOEE-40504040001/GN=OK/SN=TESTNUMBER/CN=TESTNUMBER,OK" -utf8 -out "$WORK/sign.csr"
openssl ca -batch -notext -config "$WORK/ca/ca.cnf" -cert "$PKI/issuing-ca.cert.pem" -keyfile "$PKI/issuing-ca.key.pem" \
  -extfile "$WORK/ext.cnf" -extensions smartid_sign -startdate "$START" -enddate "$END" -md sha256 -preserveDN -utf8 \
  -in "$WORK/sign.csr" -out "$WORK/sign.cert.pem" 2>"$WORK/ca.log" || { cat "$WORK/ca.log" >&2; exit 1; }
openssl x509 -in "$WORK/sign.cert.pem" -out "$OUT/rsa-6144.cert.pem"
openssl x509 -in "$OUT/rsa-6144.cert.pem" -outform DER -out "$OUT/rsa-6144.cert.der"
dn=$(openssl x509 -in "$OUT/rsa-6144.cert.pem" -noout -subject -nameopt compat | sed 's/^subject=//')
# Replace any earlier Smart-ID line (serials 12xx) in the OCSP index, keep everything else.
grep -v -P '^\S+\t\S+\t\S*\t12[0-9A-F]{2}\t' "$PKI/issuing-ca.index.txt" >"$WORK/index" || true
printf 'V\t450101000000Z\t\t1200\tunknown\t%s\n' "$dn" >>"$WORK/index"
cp "$WORK/index" "$PKI/issuing-ca.index.txt"
openssl verify -CAfile "$PKI/root.cert.pem" -untrusted "$PKI/issuing-ca.cert.pem" -attime 1767225600 "$OUT/rsa-6144.cert.pem" >/dev/null
echo "Smart-ID key and certificate written to $OUT; OCSP index updated"
