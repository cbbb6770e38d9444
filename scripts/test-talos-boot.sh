#!/usr/bin/env bash
# Real-guest check of modules/talos-cluster's boot requirements. Applies the
# module's libvirt part (network, image and node volumes, domains; the talos
# resources are not targeted: the talos provider here is the schema-only
# stand-in) against the local libvirtd, with the project's Debian test guest
# in place of the Talos image, booted through the module's kernel_boot input.
# Two single-node clusters run side by side: one with the module's defaults
# (BIOS) and one with firmware = "efi". Through libvirt and the guest agent
# only (nothing connects to the guests), it checks that
#
#  - the guest's CPU is x86-64-v2 or better: sse4_2, popcnt, cx16 and ssse3
#    in /proc/cpuinfo (guest-exec), with the CPU the module chose for the
#    domain type (host-passthrough on kvm, maximum under qemu/TCG);
#  - the node disk is on SCSI with the module's WWN (/dev/disk/by-id/wwn-*);
#  - UEFI booted when asked (/sys/firmware/efi exists) and only then;
#  - ACPI shutdown works: the guest has the ACPI power button, and
#    `virsh shutdown --mode acpi` stops it (a handler stands in for Talos'
#    own, see below);
#
# then destroys everything and checks that nothing is left.
#
# Needs: `make testenv guest-image`. Env: LIBVIRT_TEST_DOMAIN_TYPE (kvm|qemu),
# LIBVIRT_TEST_POOL, LIBVIRT_TEST_URI, TOFU, BOOT_TIMEOUT (s, default 420),
# KEEP_WORK=1 keeps the work folder.
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
GUEST_DIR="$(readlink -f "${LIBVIRT_TEST_GUEST_DIR:-/var/cache/tfplv/guest/current}")"
BOOT_TIMEOUT="${BOOT_TIMEOUT:-420}"
TALOS_VERSION=0.11.0

log() { printf '[test-talos-boot %s] %s\n' "$(date +%T)" "$*"; }
virsh_() { virsh -q -c "$URI" "$@"; }

for f in root.qcow2 vmlinuz initrd.img; do
  [[ -r "$GUEST_DIR/$f" ]] || { echo "test guest missing: $GUEST_DIR/$f (run make guest-image)" >&2; exit 2; }
done
virsh_ version >/dev/null 2>&1 || { echo "libvirtd does not answer at $URI (run make testenv)" >&2; exit 2; }
virsh_ pool-info "$POOL" >/dev/null 2>&1 || { echo "storage pool $POOL missing (run make testenv)" >&2; exit 2; }
[[ -x $TOFU ]] || { echo "OpenTofu not found at $TOFU" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq is needed (apt-get install jq)" >&2; exit 2; }

WORK_DIR=$(mktemp -d /tmp/test-talos-boot.XXXXXX)
PREFIX="tboot$$"
# Random /24s apart from the other layers' (lab: 10.212.x, quickstart 10.231.x).
third=$((RANDOM % 100 + 20))
CIDR_BIOS="10.214.$third.0/24"
CIDR_EFI="10.214.$((third + 100)).0/24"
failures=()
fail() { failures+=("$1"); log "FAILED: $1"; }

leftovers() {
  virsh_ version >/dev/null 2>&1 || { echo "(libvirtd unreachable: cannot check)"; return; }
  virsh_ list --all --name | grep "^$PREFIX-" || true
  virsh_ net-list --all --name | grep "^$PREFIX-" || true
  virsh_ vol-list "$POOL" 2>/dev/null | awk '{print $1}' | grep "^$PREFIX-" || true
}

force_cleanup() {
  local d v n
  for d in $(virsh_ list --all --name | grep "^$PREFIX-"); do
    virsh_ destroy "$d" >/dev/null 2>&1
    virsh_ undefine "$d" --nvram >/dev/null 2>&1 || virsh_ undefine "$d" >/dev/null 2>&1
  done
  for v in $(virsh_ vol-list "$POOL" | awk '{print $1}' | grep "^$PREFIX-" | sort -r); do
    virsh_ vol-delete "$v" --pool "$POOL" >/dev/null 2>&1
  done
  for n in $(virsh_ net-list --all --name | grep "^$PREFIX-"); do
    virsh_ net-destroy "$n" >/dev/null 2>&1
    virsh_ net-undefine "$n" >/dev/null 2>&1
  done
}

finish() {
  local rc=$?
  if [[ -n "$(leftovers)" ]]; then
    log "cleaning up leftovers of $PREFIX with virsh"
    force_cleanup
    rc=1
  fi
  [[ "${KEEP_WORK:-0}" == 1 ]] || rm -rf "$WORK_DIR"
  exit "$rc"
}
trap finish EXIT

# --- provider and talos stand-in into a private mirror -------------------------
t=$SECONDS
MIRROR_DIR="$WORK_DIR/mirror" CLI_CONFIG="$WORK_DIR/cli.tfrc" bash scripts/install-local-provider.sh >"$WORK_DIR/install.log" 2>&1 || {
  cat "$WORK_DIR/install.log" >&2
  exit 1
}
dir="$WORK_DIR/mirror/registry.opentofu.org/siderolabs/talos/$TALOS_VERSION/$(go env GOOS)_$(go env GOARCH)"
mkdir -p "$dir"
CGO_ENABLED=0 go build -trimpath -o "$dir/terraform-provider-talos_v$TALOS_VERSION" ./tools/talos-standin || exit 1
export TF_CLI_CONFIG_FILE="$WORK_DIR/cli.tfrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
unset TF_PLUGIN_CACHE_DIR

# --- a root with two single-node clusters (BIOS, UEFI) ---------------------------
tar -C "$ROOT" --exclude=.terraform --exclude=.terraform.lock.hcl -cf - modules/talos-cluster | tar -C "$WORK_DIR" -xf -
FIX="$WORK_DIR/root"
mkdir -p "$FIX"
cat >"$FIX/main.tf" <<EOF
terraform {
  required_providers {
    libvirt = { source = "virtxml/libvirt" }
    talos   = { source = "siderolabs/talos" }
  }
}

provider "libvirt" {
  uri = "$URI"
}

locals {
  guest = "$GUEST_DIR"
  clusters = {
    bios = { cidr = "$CIDR_BIOS", firmware = "bios" }
    efi  = { cidr = "$CIDR_EFI", firmware = "efi" }
  }
}

module "cluster" {
  source   = "../modules/talos-cluster"
  for_each = local.clusters

  cluster_name       = "$PREFIX-\${each.key}"
  pool               = "$POOL"
  domain_type        = "$DOMAIN_TYPE"
  network_cidr       = each.value.cidr
  firmware           = each.value.firmware
  controlplane_count = 1
  worker_count       = 0
  autostart          = false
  controlplane       = { memory_mib = 2048, vcpus = 2, disk_gib = 10 }

  # The Debian test guest in place of the Talos image; its kernel boots the
  # module's SCSI node disk (sda).
  talos_image        = "\${local.guest}/root.qcow2"
  talos_image_format = "qcow2"
  kernel_boot = {
    kernel  = "\${local.guest}/vmlinuz"
    initrd  = "\${local.guest}/initrd.img"
    cmdline = "root=/dev/sda rw console=ttyS0 net.ifnames=0"
  }
  talos_version   = "v1.9.5"
  image_factory   = false
  wait_for_health = false
}

output "nodes" {
  value = { for k, m in module.cluster : k => m.nodes }
}
EOF
targets=()
for k in bios efi; do
  for r in libvirt_network.this libvirt_volume.talos_image libvirt_volume.node libvirt_domain.node; do
    targets+=("-target=module.cluster[\"$k\"].$r")
  done
done
tf() { (cd "$FIX" && "$TOFU" "$@" -no-color); }
tf init -input=false >"$WORK_DIR/init.log" 2>&1 || { cat "$WORK_DIR/init.log"; exit 1; }
log "provider and stand-in built, root in $FIX ($((SECONDS - t))s); prefix $PREFIX, domain type $DOMAIN_TYPE, pool $POOL"

# --- apply ------------------------------------------------------------------------
t=$SECONDS
if tf apply -input=false -auto-approve "${targets[@]}" >"$WORK_DIR/apply.log" 2>&1; then
  log "apply: $(grep -E '^Apply complete' "$WORK_DIR/apply.log") ($((SECONDS - t))s)"
else
  tail -40 "$WORK_DIR/apply.log"
  fail "tofu apply"
fi

# guest_exec DOMAIN PATH ARG...: runs a command in the guest through the
# agent, prints its stdout; the exit code is the command's.
guest_exec() {
  local dom=$1 path=$2 args pid st i
  shift 2
  args=$(printf '%s\n' "$@" | jq -R . | jq -sc .)
  pid=$(virsh_ qemu-agent-command "$dom" "{\"execute\":\"guest-exec\",\"arguments\":{\"path\":\"$path\",\"arg\":$args,\"capture-output\":true}}" 2>/dev/null | jq -r '.return.pid') || return 99
  [[ -n $pid && $pid != null ]] || return 99
  for i in $(seq 1 30); do
    st=$(virsh_ qemu-agent-command "$dom" "{\"execute\":\"guest-exec-status\",\"arguments\":{\"pid\":$pid}}" 2>/dev/null)
    if [[ $(jq -r '.return.exited' <<<"$st") == true ]]; then
      jq -r '.return["out-data"] // ""' <<<"$st" | base64 -d
      return "$(jq -r '.return.exitcode // 99' <<<"$st")"
    fi
    sleep 1
  done
  return 98
}

if ((${#failures[@]} == 0)); then
  for k in bios efi; do
    dom="$PREFIX-$k-cp-1"
    xml=$(virsh_ dumpxml "$dom")
    cpu_mode=$(sed -n "s/.*<cpu mode='\([a-z-]*\)'.*/\1/p" <<<"$xml" | head -1)
    wwn=$(sed -n 's/.*<wwn>\(.*\)<\/wwn>.*/\1/p' <<<"$xml" | head -1)
    machine=$(sed -n "s/.*<type [^>]*machine='\([^']*\)'.*/\1/p" <<<"$xml" | head -1)
    log "$dom: defined with cpu mode $cpu_mode, machine $machine, disk wwn $wwn, acpi $(grep -c '<acpi/>' <<<"$xml"), loader $(sed -n 's/.*<loader[^>]*>\(.*\)<\/loader>.*/\1/p' <<<"$xml" | head -1)"
  done

  # Both guests boot at once; wait for each one's agent.
  for k in bios efi; do
    dom="$PREFIX-$k-cp-1"
    t=$SECONDS
    until virsh_ qemu-agent-command "$dom" '{"execute":"guest-ping"}' >/dev/null 2>&1; do
      if ((SECONDS - t > BOOT_TIMEOUT)); then
        fail "$dom: no guest agent after ${BOOT_TIMEOUT}s"
        continue 2
      fi
      sleep 5
    done
    log "$dom: guest agent answers ($((SECONDS - t))s after the first wait began)"

    flags=$(guest_exec "$dom" /bin/cat /proc/cpuinfo | sed -n 's/^flags[[:space:]]*:[[:space:]]*//p' | head -1)
    if [[ -z $flags ]]; then
      fail "$dom: no CPU flags from guest-exec cat /proc/cpuinfo"
    else
      missing=""
      for f in sse4_2 popcnt cx16 ssse3; do
        grep -qw "$f" <<<"$flags" || missing+=" $f"
      done
      if [[ -z $missing ]]; then
        log "$dom: guest CPU is x86-64-v2: sse4_2 popcnt cx16 ssse3 in /proc/cpuinfo ($(wc -w <<<"$flags") flags)"
      else
        fail "$dom: guest CPU lacks x86-64-v2 flags:$missing"
      fi
    fi

    want_wwn=$(virsh_ dumpxml "$dom" | sed -n 's/.*<wwn>0x\(.*\)<\/wwn>.*/\1/p' | head -1)
    byid=$(guest_exec "$dom" /bin/ls /dev/disk/by-id)
    if grep -qx "wwn-0x$want_wwn" <<<"$byid"; then
      log "$dom: guest sees its disk as /dev/disk/by-id/wwn-0x$want_wwn"
    else
      fail "$dom: /dev/disk/by-id has no wwn-0x$want_wwn: $(tr '\n' ' ' <<<"$byid")"
    fi

    guest_exec "$dom" /usr/bin/test -d /sys/firmware/efi >/dev/null
    efi_rc=$?
    loader=$(virsh_ dumpxml "$dom" | sed -n 's/.*<loader[^>]*>\(.*\)<\/loader>.*/\1/p' | head -1)
    if [[ $k == efi && $efi_rc == 0 && $loader =~ (secboot|\.ms\.) ]]; then
      fail "$dom: booted through UEFI, but libvirt chose a Secure Boot firmware ($loader)"
    elif [[ $k == efi && $efi_rc == 0 ]]; then
      log "$dom: booted through UEFI (/sys/firmware/efi exists; firmware $loader, no Secure Boot)"
    elif [[ $k == bios && $efi_rc == 1 ]]; then
      log "$dom: booted through BIOS (no /sys/firmware/efi)"
    else
      fail "$dom: firmware $k, but test -d /sys/firmware/efi exited $efi_rc"
    fi
  done

  # ACPI shutdown: `virsh shutdown --mode acpi` presses the ACPI power
  # button. Talos acts on that button itself; the test guest (minbase, no
  # D-Bus, so no systemd-logind) has nothing that does, so a one-line handler
  # started through the agent stands in for logind: it waits for an event of
  # the kernel's ACPI "Power Button" input device and powers off. Without
  # ACPI in the domain there is no such device and the guest stays up.
  for k in bios efi; do
    dom="$PREFIX-$k-cp-1"
    [[ $(virsh_ domstate "$dom") == running ]] || continue
    handlers=$(guest_exec "$dom" /bin/sh -c 'grep -A4 "^N: Name=\"Power Button\"" /proc/bus/input/devices | grep -E "^P: Phys=LNXPWRBN|^H: Handlers"')
    ev=$(sed -n 's/^H: Handlers=.*\(event[0-9]*\).*/\1/p' <<<"$handlers" | head -1)
    if ! grep -q LNXPWRBN <<<"$handlers" || [[ -z $ev ]]; then
      fail "$dom: the guest has no ACPI power button (LNXPWRBN) input device"
      continue
    fi
    # Detached, with its own stdio: the agent reports an exec finished only
    # when nothing holds its output pipes any more.
    guest_exec "$dom" /bin/sh -c "setsid -f /bin/sh -c 'dd if=/dev/input/$ev bs=24 count=1 of=/dev/null && systemctl poweroff' </dev/null >/dev/null 2>&1" >/dev/null ||
      { fail "$dom: could not start the power-button handler"; continue; }
    sleep 2
    t=$SECONDS
    virsh_ shutdown "$dom" --mode acpi >/dev/null || fail "$dom: virsh shutdown --mode acpi refused"
    until [[ $(virsh_ domstate "$dom") == "shut off" ]]; do
      if ((SECONDS - t > 180)); then
        fail "$dom: still $(virsh_ domstate "$dom") 180s after the ACPI shutdown request"
        break
      fi
      sleep 3
    done
    [[ $(virsh_ domstate "$dom") == "shut off" ]] && log "$dom: ACPI shutdown (power button $ev, LNXPWRBN): shut off after $((SECONDS - t))s"
  done
fi

# --- destroy, nothing left ---------------------------------------------------------
t=$SECONDS
if tf destroy -input=false -auto-approve "${targets[@]}" >"$WORK_DIR/destroy.log" 2>&1; then
  log "destroy: $(grep -E '^Destroy complete' "$WORK_DIR/destroy.log") ($((SECONDS - t))s)"
else
  tail -30 "$WORK_DIR/destroy.log"
  fail "tofu destroy"
fi
left=$(leftovers)
if [[ -n "$left" ]]; then
  fail "left behind after destroy: $(tr '\n' ' ' <<<"$left")"
else
  log "nothing left: no domain, network or volume named $PREFIX-*"
fi

if ((${#failures[@]})); then
  printf 'test-talos-boot failed:\n'
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
echo "test-talos-boot: 1 passed, 0 failed"
