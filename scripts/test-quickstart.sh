#!/usr/bin/env bash
# The README's first command, as a user runs it: scripts/quickstart.sh applies
# examples/quickstart through the locally installed provider and prints a
# destroy command. This layer checks the outputs (the guest's address came
# from the DHCP lease), runs that printed command in an empty environment,
# and fails if the domain, the network, a volume or the seed ISO is left.
# Needs scripts/testenv.sh and scripts/build-guest-image.sh (make test runs them).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
log() { echo "[test-quickstart $(date +%H:%M:%S)] $*"; }
fail() { echo "test-quickstart: FAIL: $*" >&2; exit 1; }

# shellcheck source=/dev/null
source /var/cache/tfplv/env.sh
name=quickstart # local.name in examples/quickstart
out=$(mktemp /tmp/test-quickstart.XXXXXX)
trap 'rm -f "$out"' EXIT

leftovers() {
  local found=""
  virsh -c "$LIBVIRT_TEST_URI" dominfo "$name" >/dev/null 2>&1 && found+=" domain $name"
  virsh -c "$LIBVIRT_TEST_URI" net-info "$name-net" >/dev/null 2>&1 && found+=" network $name-net"
  local v
  for v in $(virsh -c "$LIBVIRT_TEST_URI" vol-list "$LIBVIRT_TEST_POOL" 2>/dev/null | awk -v p="^$name-" 'NR > 2 && $1 ~ p {print $1}'); do
    found+=" volume $v"
  done
  for v in /var/lib/libvirt/images/cloudinit/"$name"-*.iso; do
    [[ -e $v ]] && found+=" $v"
  done
  echo "$found"
}
[[ -z "$(leftovers)" ]] || fail "objects of an earlier quickstart exist:$(leftovers)"

bash "$top/scripts/install-local-provider.sh"
log "make quickstart's apply (scripts/quickstart.sh)"
rc=0
env -u CI bash "$top/scripts/quickstart.sh" 2>&1 | tee "$out" || rc=$?
destroy=$(grep -E '^  cd /var/tmp/tfplv-quickstart\.[A-Za-z0-9]+ && ' "$out" | tail -1 | sed 's/^  //')
[[ -n $destroy ]] || fail "quickstart printed no destroy command"

check=ok
((rc == 0)) || check="quickstart exited $rc"
grep -qE '^ip_address = "10\.[0-9.]+"$' "$out" || [[ $check != ok ]] || check="no ip_address output"

log "the printed destroy command, in an empty environment: $destroy"
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$HOME" bash -c "$destroy -no-color" || fail "the printed destroy command failed"
workdir=$(sed -E 's/^cd ([^ ]+) .*/\1/' <<<"$destroy")
rm -rf "$workdir"

left=$(leftovers)
[[ -z $left ]] || fail "the destroy left:$left"
[[ $check == ok ]] || fail "$check"
log "applied (address from the lease), destroyed by the printed command, nothing left"
