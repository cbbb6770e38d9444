#!/usr/bin/env bash
# Real apply of environments/lab against the local libvirtd with the locally
# built test guest, then destroy. Proves that modules/libvirt-vm's ip_address
# output is the guest's address: it must equal the network's DHCP
# reservation for the VM's MAC and the lease libvirt reports
# (`virsh domifaddr --source lease`); the guest agent must report the
# hostname cloud-init set from the cdrom's meta-data. After destroy no
# domain, volume or network of the run may be left.
#
# Needs: `make testenv guest-image` (libvirtd, /var/cache/tfplv/env.sh,
# LIBVIRT_TEST_GUEST_DIR). Env: LIBVIRT_TEST_DOMAIN_TYPE (kvm|qemu),
# LIBVIRT_TEST_POOL, LIBVIRT_TEST_URI, TOFU, KEEP_WORK=1 keeps the work folder.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
ENV_SH=/var/cache/tfplv/env.sh
# shellcheck disable=SC1090
[[ -f $ENV_SH ]] && source "$ENV_SH"
TOFU="${TOFU:-/var/cache/tfplv/tofu-v1.12.6/tofu}"
URI="${LIBVIRT_TEST_URI:-qemu:///system}"
POOL="${LIBVIRT_TEST_POOL:-tfacc}"
DOMAIN_TYPE="${LIBVIRT_TEST_DOMAIN_TYPE:-qemu}"
GUEST_DIR="${LIBVIRT_TEST_GUEST_DIR:-/var/cache/tfplv/guest/current}"
IP_TIMEOUT="${LAB_IP_TIMEOUT:-300}"

log() { printf '[test-lab-apply %s] %s\n' "$(date +%T)" "$*"; }
virsh_() { virsh -q -c "$URI" "$@"; }

for f in root.qcow2 vmlinuz initrd.img; do
  [[ -r "$GUEST_DIR/$f" ]] || { echo "test guest missing: $GUEST_DIR/$f (run make guest-image)" >&2; exit 2; }
done
virsh_ version >/dev/null 2>&1 || { echo "libvirtd does not answer at $URI (run make testenv)" >&2; exit 2; }
virsh_ pool-info "$POOL" >/dev/null 2>&1 || { echo "storage pool $POOL missing (run make testenv)" >&2; exit 2; }
[[ -x $TOFU ]] || { echo "OpenTofu not found at $TOFU" >&2; exit 2; }
command -v jq >/dev/null || apt-get install -y -q jq >/dev/null 2>&1 || { echo "jq is needed (apt-get install jq)" >&2; exit 2; }

WORK_DIR=$(mktemp -d /tmp/test-lab-apply.XXXXXX)
PREFIX="labtest-$$"
# A random /24 keeps parallel runs and other test networks apart.
NET_CIDR="10.212.$((RANDOM % 200 + 20)).0/24"
failures=()
fail() { failures+=("$1"); log "FAILED: $1"; }

leftovers() {
  # An unreachable libvirtd proves nothing: say so instead of "nothing left".
  virsh_ version >/dev/null 2>&1 || { echo "(libvirtd unreachable: cannot check)"; return; }
  virsh_ list --all --name | grep "^$PREFIX-" || true
  virsh_ net-list --all --name | grep "^$PREFIX\$" || true
  virsh_ vol-list "$POOL" 2>/dev/null | awk '{print $1}' | grep "^$PREFIX-" || true
  # libvirt_cloudinit_disk writes its ISO outside the pool (default folder).
  ls -d /var/lib/libvirt/images/cloudinit/"$PREFIX"-* 2>/dev/null || true
}

# Last resort if tofu destroy failed: remove what the run made, by its
# unique prefix, and count it as a failure.
force_cleanup() {
  local d v
  for d in $(virsh_ list --all --name | grep "^$PREFIX-"); do
    virsh_ destroy "$d" >/dev/null 2>&1
    virsh_ undefine "$d" --nvram >/dev/null 2>&1 || virsh_ undefine "$d" >/dev/null 2>&1
  done
  for v in $(virsh_ vol-list "$POOL" | awk '{print $1}' | grep "^$PREFIX-" | sort -r); do
    virsh_ vol-delete "$v" --pool "$POOL" >/dev/null 2>&1
  done
  rm -f /var/lib/libvirt/images/cloudinit/"$PREFIX"-*
  if virsh_ net-info "$PREFIX" >/dev/null 2>&1; then
    virsh_ net-destroy "$PREFIX" >/dev/null 2>&1
    virsh_ net-undefine "$PREFIX" >/dev/null 2>&1
  fi
}

finish() {
  local rc=$?
  if [[ -n "$(leftovers)" ]]; then
    log "cleaning up leftovers of $PREFIX with virsh"
    force_cleanup
  fi
  [[ "${KEEP_WORK:-0}" == 1 ]] || rm -rf "$WORK_DIR"
  exit "$rc"
}
trap finish EXIT

# --- provider into a private mirror, lab root in a copy --------------------
t=$SECONDS
MIRROR_DIR="$WORK_DIR/mirror" CLI_CONFIG="$WORK_DIR/cli.tfrc" bash scripts/install-local-provider.sh >"$WORK_DIR/install.log" 2>&1 || {
  cat "$WORK_DIR/install.log" >&2
  exit 1
}
export TF_CLI_CONFIG_FILE="$WORK_DIR/cli.tfrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
unset TF_PLUGIN_CACHE_DIR
tar -C "$ROOT" --exclude=.terraform --exclude=.terraform.lock.hcl --exclude='*.tfstate*' -cf - modules environments/lab |
  tar -C "$WORK_DIR" -xf -
LAB="$WORK_DIR/environments/lab"
cat >"$LAB/test.auto.tfvars.json" <<JSON
{
  "libvirt_uri": "$URI",
  "name_prefix": "$PREFIX",
  "pool": "$POOL",
  "domain_type": "$DOMAIN_TYPE",
  "network_cidr": "$NET_CIDR",
  "guest_dir": "$(readlink -f "$GUEST_DIR")"
}
JSON
log "provider built, lab copied to $LAB ($((SECONDS - t))s); prefix $PREFIX, network $NET_CIDR, domain type $DOMAIN_TYPE, pool $POOL"

tf() { (cd "$LAB" && "$TOFU" "$@" -no-color); }

tf init -input=false >"$WORK_DIR/init.log" 2>&1 || { cat "$WORK_DIR/init.log"; exit 1; }

# --- apply -------------------------------------------------------------------
t=$SECONDS
if tf apply -input=false -auto-approve >"$WORK_DIR/apply.log" 2>&1; then
  log "apply: $(grep -E '^Apply complete' "$WORK_DIR/apply.log") ($((SECONDS - t))s)"
else
  tail -60 "$WORK_DIR/apply.log"
  fail "tofu apply"
fi

# --- the module's ip_address against the reservation and the lease ---------
if ((${#failures[@]} == 0)); then
  # The address data source may read before the guest has leased (the
  # ADR: it converges on refresh); refresh until every VM has one.
  deadline=$((SECONDS + IP_TIMEOUT))
  while :; do
    tf output -json vms >"$WORK_DIR/vms.json" 2>/dev/null
    missing=$(jq -r '[.[] | select(.ip_address == null)] | length' "$WORK_DIR/vms.json" 2>/dev/null || echo 99)
    [[ $missing == 0 ]] && break
    if ((SECONDS > deadline)); then
      fail "ip_address still null for $missing VM(s) after ${IP_TIMEOUT}s"
      break
    fi
    sleep 10
    tf apply -refresh-only -input=false -auto-approve >"$WORK_DIR/refresh.log" 2>&1 || { tail -30 "$WORK_DIR/refresh.log"; }
  done
  log "ip_address known for all VMs after $((SECONDS - t))s"
  cat "$WORK_DIR/vms.json" | jq -c 'to_entries[] | {name: .key, ip_address: .value.ip_address, reserved_ip: .value.reserved_ip, mac: .value.mac_address}'

  for name in $(jq -r 'keys[]' "$WORK_DIR/vms.json"); do
    ip=$(jq -r --arg n "$name" '.[$n].ip_address' "$WORK_DIR/vms.json")
    reserved=$(jq -r --arg n "$name" '.[$n].reserved_ip' "$WORK_DIR/vms.json")
    mac=$(jq -r --arg n "$name" '.[$n].mac_address' "$WORK_DIR/vms.json")
    # The reservation as libvirt holds it, not as the configuration says.
    net_reserved=$(virsh_ net-dumpxml "$PREFIX" | grep -i "mac='$mac'" | sed -n "s/.*ip='\([0-9.]*\)'.*/\1/p")
    lease_ips=$(virsh_ domifaddr "$name" --source lease | awk -v m="$mac" 'tolower($2) == m {split($4, a, "/"); print a[1]}')
    if [[ "$ip" == "$reserved" && "$ip" == "$net_reserved" ]] && grep -qx "$ip" <<<"$lease_ips"; then
      log "$name: ip_address $ip = DHCP reservation for $mac = lease (virsh domifaddr --source lease)"
    else
      fail "$name: ip_address '$ip', reserved (config) '$reserved', reserved (libvirt) '$net_reserved', lease '$lease_ips'"
    fi
    # cloud-init read the scsi cdrom: the guest agent reports the hostname
    # from meta-data (local-hostname = VM name).
    host=""
    for _ in $(seq 1 30); do
      host=$(virsh_ qemu-agent-command "$name" '{"execute":"guest-get-host-name"}' 2>/dev/null | jq -r '.return."host-name"' 2>/dev/null)
      [[ "$host" == "$name" ]] && break
      sleep 5
    done
    if [[ "$host" == "$name" ]]; then
      log "$name: guest agent reports hostname $host (cloud-init seed found on the cdrom)"
    else
      fail "$name: guest agent hostname '$host', want '$name'"
    fi
  done
fi

# --- one base volume shared by every VM's overlay -----------------------------
if ((${#failures[@]} == 0)); then
  base=$(tf output -raw base_volume 2>/dev/null)
  nbases=$(virsh_ vol-list "$POOL" | awk '{print $1}' | grep -c "^$PREFIX-.*base" || true)
  shared=0
  for name in $(jq -r 'keys[]' "$WORK_DIR/vms.json"); do
    backing=$(virsh_ vol-dumpxml "$name-root.qcow2" --pool "$POOL" 2>/dev/null | sed -n '/<backingStore>/,/<\/backingStore>/s/.*<path>\(.*\)<\/path>.*/\1/p')
    if [[ -n "$base" && "$backing" == "$base" ]]; then
      shared=$((shared + 1))
    else
      fail "$name-root.qcow2 is backed by '$backing', want the shared base '$base'"
    fi
  done
  if [[ $nbases == 1 ]]; then
    log "one base volume ($base) for $shared VMs: every root overlay is backed by it (virsh vol-dumpxml)"
  else
    fail "want 1 base volume named $PREFIX-*base*, found $nbases"
  fi
  # A second plan must be empty: what the module sends is what libvirt keeps.
  tf plan -input=false -detailed-exitcode >"$WORK_DIR/plan2.log" 2>&1
  rc=$?
  if [[ $rc == 0 ]]; then
    log "second plan: no changes"
  else
    grep -E '^\s+[~+-] |#' "$WORK_DIR/plan2.log" | head -40
    fail "second plan not empty (exit $rc)"
  fi
fi

# --- destroy, nothing left ------------------------------------------------------
t=$SECONDS
if tf destroy -input=false -auto-approve >"$WORK_DIR/destroy.log" 2>&1; then
  log "destroy: $(grep -E '^Destroy complete' "$WORK_DIR/destroy.log") ($((SECONDS - t))s)"
else
  tail -40 "$WORK_DIR/destroy.log"
  fail "tofu destroy"
fi
left=$(leftovers)
if [[ -n "$left" ]]; then
  fail "left behind after destroy: $(tr '\n' ' ' <<<"$left")"
else
  log "nothing left: no domain, network, volume or cloud-init ISO named $PREFIX* (virsh list --all, net-list --all, vol-list $POOL)"
fi

if ((${#failures[@]})); then
  printf 'test-lab-apply failed:\n'
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
echo "test-lab-apply: 1 passed, 0 failed"
