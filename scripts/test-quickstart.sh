#!/usr/bin/env bash
# The README's first command, as a user runs it: scripts/quickstart.sh applies
# examples/quickstart through the locally installed provider and prints a
# destroy command. This layer checks the outputs (the guest's address came
# from the DHCP lease), runs that printed command in an empty environment,
# and fails if the domain, the network, a volume or the seed ISO is left.
#
# It leaves a user's own quickstart alone, so `make quickstart` and `make test`
# work in either order: the test applies a copy of the example with its own
# names (qstest instead of quickstart), its own subnet and MAC, and its own
# working folder (/var/tmp/tfplv-test-quickstart.*), and checks afterwards that
# the objects of a user's quickstart that existed before are still there.
# Needs scripts/testenv.sh and scripts/build-guest-image.sh (make test runs them).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
log() { echo "[test-quickstart $(date +%H:%M:%S)] $*"; }
fail() { echo "test-quickstart: FAIL: $*" >&2; exit 1; }

# shellcheck source=/dev/null
source /var/cache/tfplv/env.sh
user_name=quickstart # local.name in examples/quickstart
name=qstest
out=$(mktemp /tmp/test-quickstart.XXXXXX)
example=$(mktemp -d /tmp/test-quickstart-example.XXXXXX)
trap 'rm -rf "$out" "$example"' EXIT

# The example with the test's own name, subnet (10.231.19.0/24 instead of
# 10.231.7.0/24: libvirt refuses two networks on one subnet; 10.231.9.0/24 is the
# network import test's) and MAC. Each
# replaced value must have been found, so a changed example fails loudly here
# instead of silently sharing names with the user's quickstart.
cp -r "$top/examples/quickstart/." "$example/"
rm -rf "$example/.terraform" "$example"/terraform.tfstate*
for pair in "name = \"$user_name\"|name = \"$name\"" "10.231.7.|10.231.19." "52:54:00:0a:5e:10|52:54:00:0a:5e:19"; do
  from=${pair%%|*} to=${pair#*|}
  grep -qF "$from" "$example/main.tf" || fail "examples/quickstart/main.tf no longer contains '$from': update the renaming in $0"
  sed -i "s/$(sed 's/[.]/\\./g' <<<"$from")/$to/g" "$example/main.tf"
done
! grep -qE "\"$user_name\"|10\.231\.7\.|52:54:00:0a:5e:10" "$example/main.tf" || fail "the test copy still uses a name, subnet or MAC of the user's quickstart"

# Objects of the user's quickstart, listed before the test and again after it.
user_objects() {
  {
    virsh -c "$LIBVIRT_TEST_URI" list --all --name | grep -x "$user_name" | sed 's/^/domain /'
    virsh -c "$LIBVIRT_TEST_URI" net-list --all --name | grep -x "$user_name-net" | sed 's/^/network /'
    virsh -c "$LIBVIRT_TEST_URI" vol-list "$LIBVIRT_TEST_POOL" 2>/dev/null | awk -v p="^$user_name-" 'NR > 2 && $1 ~ p {print "volume " $1}'
  } | sort
}
user_before=$(user_objects)
[[ -z $user_before ]] || log "a user's quickstart exists and must survive the test: $(tr '\n' ' ' <<<"$user_before")"

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
[[ -z "$(leftovers)" ]] || fail "objects of an earlier test-quickstart run exist:$(leftovers)"

bash "$top/scripts/install-local-provider.sh"
log "make quickstart's apply (scripts/quickstart.sh)"
rc=0
env -u CI EXAMPLE_DIR="$example" WORKDIR_PREFIX=tfplv-test-quickstart bash "$top/scripts/quickstart.sh" 2>&1 | tee "$out" || rc=$?
destroy=$(grep -E '^  cd /var/tmp/tfplv-test-quickstart\.[A-Za-z0-9]+ && ' "$out" | tail -1 | sed 's/^  //')
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
user_after=$(user_objects)
[[ "$user_after" == "$user_before" ]] || fail "the user's quickstart objects changed: before [$(tr '\n' ' ' <<<"$user_before")], after [$(tr '\n' ' ' <<<"$user_after")]"
[[ -z $user_before ]] || log "the user's quickstart is untouched: $(tr '\n' ' ' <<<"$user_after")"
log "applied (address from the lease), destroyed by the printed command, nothing left"
