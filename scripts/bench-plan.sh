#!/usr/bin/env bash
# Plan/apply cost over N trivial libvirt domains with the real tofu and the
# locally built provider, next to N built-in terraform_data resources (the
# floor). Prints wall times and the provider's libvirt RPC calls.
# Usage: scripts/bench-plan.sh [N]   (needs libvirtd and scripts/testenv.sh)
set -euo pipefail
N=${1:-100}
top=$(cd "$(dirname "$0")/.." && pwd)
source /var/cache/tfplv/env.sh
TOFU=${TOFU:-/var/cache/tfplv/tofu-v1.12.6/tofu}
work=$(mktemp -d /tmp/bench-plan.XXXXXX)
trap 'cd "$work/domains" 2>/dev/null && "$TOFU" destroy -auto-approve -parallelism=20 >/dev/null 2>&1; rm -rf "$work"' EXIT

mkdir -p "$work/bin" "$work/domains" "$work/floor"
(cd "$top" && CGO_ENABLED=0 go build -trimpath -o "$work/bin/terraform-provider-libvirt" .)
cat > "$work/tofurc" <<RC
provider_installation {
  dev_overrides { "registry.opentofu.org/virtxml/libvirt" = "$work/bin" }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$work/tofurc" TF_IN_AUTOMATION=1
export TFPLV_RPC_COUNT_FILE="$work/rpc-count"

cat > "$work/domains/main.tf" <<TF
terraform {
  required_providers {
    libvirt = { source = "virtxml/libvirt" }
  }
}
provider "libvirt" { uri = "qemu:///system" }
resource "libvirt_domain" "d" {
  count       = $N
  name        = "bench-plan-\${count.index}"
  type        = "${LIBVIRT_TEST_DOMAIN_TYPE:-qemu}"
  memory      = 64
  memory_unit = "MiB"
  vcpu        = 1
  os          = { type = "hvm" }
  devices = {
    serials  = [{ target = { port = 0 } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
  }
}
TF
cat > "$work/floor/main.tf" <<TF
resource "terraform_data" "d" {
  count = $N
  input = "bench-\${count.index}"
}
TF

# each provider process writes its running total to $TFPLV_RPC_COUNT_FILE.<pid>
rpc() { cat "$TFPLV_RPC_COUNT_FILE".* 2>/dev/null | awk '{s+=$1} END {print s+0}'; }
timeit() { # label, then command; prints seconds
  local label=$1; shift
  rm -f "$TFPLV_RPC_COUNT_FILE".*
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$work/out.log" 2>&1 || { cat "$work/out.log"; exit 1; }
  t1=$(date +%s.%N)
  printf '%-48s %6.2f s   libvirt calls: %s\n' "$label" "$(echo "$t1 - $t0" | bc)" "$(rpc)"
}

cd "$work/floor"
"$TOFU" init -input=false >/dev/null
"$TOFU" apply -auto-approve -input=false >/dev/null
timeit "tofu plan, $N terraform_data (floor)" "$TOFU" plan -input=false -lock=false
cd "$work/domains"
timeit "tofu apply, $N libvirt_domain (create)" "$TOFU" apply -auto-approve -input=false -parallelism=10
timeit "tofu plan, $N libvirt_domain" "$TOFU" plan -input=false -lock=false -detailed-exitcode
timeit "tofu plan, $N libvirt_domain (again)" "$TOFU" plan -input=false -lock=false -detailed-exitcode
timeit "tofu plan -refresh=false, $N libvirt_domain" "$TOFU" plan -refresh=false -input=false -lock=false -detailed-exitcode
timeit "tofu destroy, $N libvirt_domain" "$TOFU" destroy -auto-approve -input=false -parallelism=10
