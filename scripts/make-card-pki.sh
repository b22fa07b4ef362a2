#!/usr/bin/env bash
# Issues the TEST ONLY keys and certificates the virtual ID cards (tamga-vcard) carry, from the
# existing test issuing CA in Fixtures/pki, so every other fixture stays valid. Adds the new
# serials (0x1100 upwards) to Fixtures/pki/issuing-ca.index.txt so the test OCSP responder
# answers "good" for them.
#
#   scripts/make-card-pki.sh            # -> Fixtures/card/<profile>/{sign,auth}.{key.pem,cert.der,cert.pem}
#
# Per card: a signing key (keyUsage critical nonRepudiation, QC statements QcCompliance +
# QcSSCD + QcType esign, as national ID-card signing certificates carry) and an authentication
# key (digitalSignature + keyAgreement, EKU clientAuth). IDEMIA and Thales EstEID cards carry
# P-384 keys; the FinEID card here carries P-256 keys, so both hash-padding paths are exercised.
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$SCRIPT_DIR/.."
PKI=Fixtures/pki
OUT=Fixtures/card
START=20250101000000Z
END=20450101000000Z
OCSP_URL=http://127.0.0.1:8788/ocsp
ISSUING_URL=http://127.0.0.1:8788/ca/issuing-ca.cert.der
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cat >"$WORK/ext.cnf" <<EOF
[ card_sign ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, nonRepudiation
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess    = OCSP;URI:$OCSP_URL, caIssuers;URI:$ISSUING_URL
certificatePolicies    = 1.3.6.1.4.1.51361.1.1.1, 0.4.0.194112.1.2
# QCStatements: QcCompliance, QcSSCD, QcType = esign
1.3.6.1.5.5.7.1.3      = DER:30:29:30:08:06:06:04:00:8E:46:01:01:30:08:06:06:04:00:8E:46:01:04:30:13:06:06:04:00:8E:46:01:06:30:09:06:07:04:00:8E:46:01:06:01

[ card_auth ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature, keyAgreement
extendedKeyUsage       = clientAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess    = OCSP;URI:$OCSP_URL, caIssuers;URI:$ISSUING_URL
EOF

# `openssl x509 -req` in OpenSSL 3.0 cannot set fixed dates; a throwaway `openssl ca` can.
source "$SCRIPT_DIR/pki-lib.sh"   # mkca
mkca ca 1100

serial=$((0x1100))
# profile | curve | subject (without CN) | common name
CARDS=(
  "idemia|secp384r1|/C=EE/serialNumber=PNOEE-38001085718/GN=JAAK-KRISTJAN/SN=TESTCARD IDEMIA|TESTCARD IDEMIA\\,JAAK-KRISTJAN\\,38001085718"
  "thales|secp384r1|/C=EE/serialNumber=PNOEE-60001019906/GN=MARY ÄNN/SN=TESTCARD THALES|TESTCARD THALES\\,MARY ÄNN\\,60001019906"
  "fineid|prime256v1|/C=FI/serialNumber=999198725/GN=TESTI/SN=SPECIMEN|SPECIMEN TESTI 999198725"
)
index_lines=()
for card in "${CARDS[@]}"; do
  IFS='|' read -r profile curve subject cn <<<"$card"
  mkdir -p "$OUT/$profile"
  for role in sign auth; do
    key="$OUT/$profile/$role.key.pem"
    openssl genpkey -algorithm EC -pkeyopt "ec_paramgen_curve:$curve" -pkeyopt ec_param_enc:named_curve -out "$key"
    openssl req -new -key "$key" -subj "$subject/CN=$cn" -utf8 -out "$WORK/$role.csr"
    hex=$(printf '%X' "$serial")
    echo "$hex" >"$WORK/ca/serial"
    openssl ca -batch -notext -config "$WORK/ca/ca.cnf" -cert "$PKI/issuing-ca.cert.pem" -keyfile "$PKI/issuing-ca.key.pem" \
      -in "$WORK/$role.csr" -out "$WORK/$role.cert.pem" -startdate "$START" -enddate "$END" -md sha256 \
      -preserveDN -utf8 -extfile "$WORK/ext.cnf" -extensions "card_$role" 2>"$WORK/ca.log" \
      || { cat "$WORK/ca.log" >&2; exit 1; }
    openssl x509 -in "$WORK/$role.cert.pem" -out "$OUT/$profile/$role.cert.pem"
    openssl x509 -in "$OUT/$profile/$role.cert.pem" -outform DER -out "$OUT/$profile/$role.cert.der"
    dn=$(openssl x509 -in "$OUT/$profile/$role.cert.pem" -noout -subject -nameopt compat | sed 's/^subject=//')
    index_lines+=("V	450101000000Z		$hex	unknown	$dn")
    serial=$((serial + 1))
  done
done

# Replace any earlier card lines (serials 11xx) in the OCSP index, keep everything else.
grep -v -P '^\S+\t\S+\t\S*\t11[0-9A-F]{2}\t' "$PKI/issuing-ca.index.txt" >"$WORK/index" || true
printf '%s\n' "${index_lines[@]}" >>"$WORK/index"
cp "$WORK/index" "$PKI/issuing-ca.index.txt"
echo "card keys and certificates written to $OUT; OCSP index updated"
