#!/usr/bin/env bash
# Plan/apply cost over N trivial libvirt domains with the real tofu and the
# locally built provider, next to two floors:
#   - N built-in terraform_data resources (tofu with a tiny schema);
#   - the same N domains served by tools/schema-floor, a provider with the
#     real libvirt_domain schema that does no work: the lowest plan time any
#     provider with this schema can reach here.
# Prints wall times, CPU seconds and the provider's libvirt RPC calls.
# SWEEP=1 adds the schema-floor plan time for pruned domain schemas (fewer
# attributes), which shows how tofu's own cost grows with schema size.
# Usage: scripts/bench-plan.sh [N]   (needs libvirtd and scripts/testenv.sh)
set -euo pipefail
N=${1:-100}
top=$(cd "$(dirname "$0")/.." && pwd)
source /var/cache/tfplv/env.sh
TOFU=${TOFU:-/var/cache/tfplv/tofu-v1.12.6/tofu}
work=$(mktemp -d /tmp/bench-plan.XXXXXX)
trap 'cd "$work/domains" 2>/dev/null && "$TOFU" destroy -auto-approve -parallelism=20 >/dev/null 2>&1; rm -rf "$work"' EXIT

mkdir -p "$work/bin" "$work/domains" "$work/floor" "$work/floorbin" "$work/schemafloor"
(cd "$top" && CGO_ENABLED=0 go build -trimpath -o "$work/bin/terraform-provider-libvirt" .)
(cd "$top" && CGO_ENABLED=0 go build -trimpath -o "$work/floorbin/terraform-provider-libvirt" ./tools/schema-floor)
cat > "$work/tofurc-floor" <<RC
provider_installation {
  dev_overrides { "registry.opentofu.org/virtxml/libvirt" = "$work/floorbin" }
  direct {}
}
RC
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
  local rc=0
  /usr/bin/time -o "$work/time" -f '%e %U %S' "$@" >"$work/out.log" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then # plan -detailed-exitcode: 2 means "changes", which a bench plan must not have
    grep -E "Error|Plan:|must be replaced|will be (created|updated)" "$work/out.log" | head -20
    echo "$label: exit $rc" >&2
    exit 1
  fi
  read -r wall user sys <"$work/time"
  # CPU: tofu and its provider processes together (user + system)
  printf '%-52s %6.2f s   CPU %5.2f s   libvirt calls: %s\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" "$(rpc)"
}

cd "$work/floor"
"$TOFU" init -input=false >/dev/null
"$TOFU" apply -auto-approve -input=false >/dev/null
timeit "tofu plan, $N terraform_data (floor)" "$TOFU" plan -input=false -lock=false
# the schema floor: the same configuration, a provider that does no work
cp "$work/domains/main.tf" "$work/schemafloor/main.tf"
floor_plan() { # SCHEMA_FLOOR_MAX_SUBTREE (from the caller) selects the schema size
  local attrs
  attrs=$("$work/floorbin/terraform-provider-libvirt" count)
  rm -f terraform.tfstate terraform.tfstate.backup
  "$TOFU" apply -auto-approve -input=false -parallelism=10 >"$work/out.log" 2>&1 || { tail -30 "$work/out.log"; exit 1; }
  grep -q "Apply complete! Resources: $N added" "$work/out.log" || { echo "no-op provider: apply did not add $N" >&2; tail -5 "$work/out.log"; exit 1; }
  timeit "tofu plan, $N domains, no-op provider, $attrs attrs" "$TOFU" plan -input=false -lock=false -detailed-exitcode
}
(
  cd "$work/schemafloor"
  export TF_CLI_CONFIG_FILE="$work/tofurc-floor"
  unset SCHEMA_FLOOR_MAX_SUBTREE
  floor_plan
  if [ "${SWEEP:-0}" = 1 ]; then
    for k in 400 150 60 30 5 0; do SCHEMA_FLOOR_MAX_SUBTREE=$k floor_plan; done
  fi
)

cd "$work/domains"
timeit "tofu apply, $N libvirt_domain (create)" "$TOFU" apply -auto-approve -input=false -parallelism=10
timeit "tofu plan, $N libvirt_domain" "$TOFU" plan -input=false -lock=false -detailed-exitcode
timeit "tofu plan, $N libvirt_domain (again)" "$TOFU" plan -input=false -lock=false -detailed-exitcode
timeit "tofu plan -refresh=false, $N libvirt_domain" "$TOFU" plan -refresh=false -input=false -lock=false -detailed-exitcode
timeit "tofu destroy, $N libvirt_domain" "$TOFU" destroy -auto-approve -input=false -parallelism=10
