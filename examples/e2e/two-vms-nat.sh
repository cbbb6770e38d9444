#!/usr/bin/env bash
# Applies examples/two-vms-nat against the local libvirtd with the test guest
# (scripts/build-guest-image.sh), checks that both VMs got their reserved
# addresses and that a second plan is empty, then destroys everything.
# two_vms_nat_override.tf makes the network isolated and the user data empty.
#
# Env (from /var/cache/tfplv/env.sh): TOFU, LIBVIRT_TEST_GUEST_DIR,
# LIBVIRT_TEST_POOL, LIBVIRT_TEST_DOMAIN_TYPE, LIBVIRT_TEST_URI.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
TOFU="${TOFU:-tofu}"
: "${LIBVIRT_TEST_GUEST_DIR:?LIBVIRT_TEST_GUEST_DIR must name the test guest (make guest-image)}"
CIDR=10.234.6.0/24

log() { printf '[two-vms-nat %s] %s\n' "$(date +%T)" "$*"; }

work=$(mktemp -d)
# leftovers lists libvirt objects of the example that still exist.
leftovers() {
  local uri=${LIBVIRT_TEST_URI:-qemu:///system}
  {
    virsh -c "$uri" list --all --name
    virsh -c "$uri" net-list --all --name
    virsh -c "$uri" vol-list "${LIBVIRT_TEST_POOL:-tfacc}" | awk 'NR > 2 { print $1 }'
    ls /var/lib/libvirt/images/cloudinit 2>/dev/null || true # the seed ISOs (the provider runs as root)
  } | grep '^two-vms' | tr '\n' ' ' || true
}

cleanup() {
  if [[ -f "$work/terraform.tfstate" ]]; then
    log "destroying"
    (cd "$work" && "$TOFU" destroy -auto-approve -input=false -no-color "${vars[@]}" >"$work/destroy.log" 2>&1) ||
      { cat "$work/destroy.log"; echo "destroy failed; state kept in $work" >&2; exit 1; }
    left=$(leftovers)
    [[ -z "$left" ]] || { echo "destroy left behind: $left" >&2; exit 1; }
    log "destroyed: no domain, network or volume named two-vms-* left"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

CGO_ENABLED=0 go build -o "$work/bin/terraform-provider-libvirt" .
cat >"$work/tofurc" <<EOT
disable_checkpoint = true
provider_installation {
  dev_overrides {
    "registry.opentofu.org/virtxml/libvirt"  = "$work/bin"
    "registry.terraform.io/virtxml/libvirt" = "$work/bin"
  }
  direct {}
}
EOT
export TF_CLI_CONFIG_FILE="$work/tofurc"
cp examples/two-vms-nat/main.tf examples/e2e/two_vms_nat_override.tf "$work/"

vars=(
  -var "libvirt_uri=${LIBVIRT_TEST_URI:-qemu:///system}"
  -var "pool=${LIBVIRT_TEST_POOL:-tfacc}"
  -var "domain_type=${LIBVIRT_TEST_DOMAIN_TYPE:-qemu}"
  -var "network_cidr=$CIDR"
  -var "base_image_url=$LIBVIRT_TEST_GUEST_DIR/root.qcow2"
  -var "kernel_boot={ kernel = \"$LIBVIRT_TEST_GUEST_DIR/vmlinuz\", initrd = \"$LIBVIRT_TEST_GUEST_DIR/initrd.img\", cmdline = \"root=/dev/vda rw console=ttyS0 net.ifnames=0\" }"
)

cd "$work"
t=$SECONDS
log "applying"
"$TOFU" apply -auto-approve -input=false -no-color "${vars[@]}" >apply.log 2>&1 || { cat apply.log; exit 1; }
log "apply (base upload, 2 overlays, 2 seeds, network, 2 guests booted to their leases) took $((SECONDS - t))s"

got=$("$TOFU" output -no-color -json ip_addresses)
want='{"db":"10.234.6.11","web":"10.234.6.10"}'
if [[ "$(jq -cS . <<<"$got")" != "$want" ]]; then
  echo "ip_addresses = $got, want $want" >&2
  exit 1
fi
log "ip_addresses = $got (the DHCP reservations)"

for vm in web db; do
  state=$(virsh -c "${LIBVIRT_TEST_URI:-qemu:///system}" domstate "two-vms-$vm")
  [[ "$state" == running ]] || { echo "two-vms-$vm is $state, want running" >&2; exit 1; }
done

rc=0
"$TOFU" plan -detailed-exitcode -input=false -no-color "${vars[@]}" >plan.log 2>&1 || rc=$?
if [[ $rc -ne 0 ]]; then
  cat plan.log
  echo "second plan exit code $rc, want 0 (empty plan)" >&2
  exit 1
fi
log "second plan is empty"
