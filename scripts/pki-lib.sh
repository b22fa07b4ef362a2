# pki-lib.sh — sourced by make-test-pki.sh and make-card-pki.sh (needs $WORK).
# A minimal `openssl ca` setup: CA database in $WORK/<ca>/, serials start at $2.
mkca() { # mkca NAME FIRST_SERIAL_HEX
  mkdir -p "$WORK/$1/newcerts"
  : >"$WORK/$1/index.txt"
  echo "unique_subject = no" >"$WORK/$1/index.txt.attr"
  echo "$2" >"$WORK/$1/serial"
  cat >"$WORK/$1/ca.cnf" <<EOF
[ ca ]
default_ca = this_ca
[ this_ca ]
dir             = $WORK/$1
database        = \$dir/index.txt
new_certs_dir   = \$dir/newcerts
serial          = \$dir/serial
default_md      = sha256
policy          = policy_any
unique_subject  = no
copy_extensions = none
preserve        = yes
email_in_dn     = no
[ policy_any ]
countryName            = optional
stateOrProvinceName    = optional
localityName           = optional
organizationName       = optional
organizationalUnitName = optional
commonName             = supplied
surname                = optional
givenName              = optional
serialNumber           = optional
EOF
}

