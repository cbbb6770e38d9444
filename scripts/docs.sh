#!/usr/bin/env bash
# Generates docs/ from templates/ and examples/ with tfplugindocs, fully
# offline: the provider schema comes from `tofu providers schema -json` run
# against a provider binary built from this checkout (dev_overrides), so
# tfplugindocs never builds the provider itself nor downloads Terraform.
#
#   scripts/docs.sh            regenerate docs/
#   scripts/docs.sh --check    regenerate, then fail if docs/ differs from git
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOFU=${TOFU:-/var/cache/tfplv/tofu-v1.12.6/tofu}
PROVIDER_ADDR=registry.opentofu.org/virtxml/libvirt
PROVIDER_NAME=libvirt

check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

log() { printf '[docs] %s\n' "$*" >&2; }

if [[ ! -x $TOFU ]]; then
  echo "docs: OpenTofu not found at $TOFU (set TOFU=/path/to/tofu)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$ROOT"
log "building the provider for its schema"
CGO_ENABLED=0 go build -trimpath -o "$work/plugins/terraform-provider-libvirt" .

# dev_overrides serves the provider straight from the build directory; the
# empty filesystem mirror makes sure nothing else is ever fetched.
mkdir -p "$work/empty-mirror" "$work/root"
cat >"$work/tofurc" <<EOF
provider_installation {
  dev_overrides {
    "$PROVIDER_ADDR" = "$work/plugins"
  }
  filesystem_mirror {
    path = "$work/empty-mirror"
  }
}
EOF
cat >"$work/root/main.tf" <<EOF
terraform {
  required_providers {
    libvirt = {
      source = "$PROVIDER_ADDR"
    }
  }
}
EOF

export TF_CLI_CONFIG_FILE="$work/tofurc" TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
log "reading the schema with $("$TOFU" version | head -1)"
(cd "$work/root" && "$TOFU" providers schema -json) >"$work/schema-full.json" 2>"$work/schema.err" || {
  cat "$work/schema.err" >&2
  exit 1
}

# tfplugindocs looks the schema up by the short provider name.
jq --arg addr "$PROVIDER_ADDR" --arg name "$PROVIDER_NAME" '
  if .provider_schemas[$addr] == null then error("no schema for " + $addr) else . end
  | .provider_schemas = {($name): .provider_schemas[$addr]}' \
  "$work/schema-full.json" >"$work/schema.json"
log "schema: $(jq -r --arg n "$PROVIDER_NAME" '.provider_schemas[$n] |
  "\((.resource_schemas // {}) | length) resources, \((.data_source_schemas // {}) | length) data sources"' "$work/schema.json")"

tfplugindocs() { go run github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs "$@"; }

tfplugindocs generate \
  --provider-dir "$ROOT" \
  --provider-name "$PROVIDER_NAME" \
  --rendered-provider-name "$PROVIDER_NAME" \
  --providers-schema "$work/schema.json" \
  --website-temp-dir "$work/website" >"$work/generate.log" 2>&1 || {
  cat "$work/generate.log" >&2
  exit 1
}
grep -i 'warn' "$work/generate.log" >&2 || true

tfplugindocs validate --provider-dir "$ROOT" --provider-name "$PROVIDER_NAME" >"$work/validate.log" 2>&1 || {
  cat "$work/validate.log" >&2
  echo "docs: tfplugindocs validate failed" >&2
  exit 1
}
log "generated $(find docs -name '*.md' | wc -l) pages under docs/"

if $check; then
  # Stale tracked pages show in the diff; pages for new resources that were
  # never committed show as untracked.
  untracked=$(git ls-files --others --exclude-standard -- docs/)
  if ! git diff --exit-code --stat -- docs/ || [[ -n $untracked ]]; then
    [[ -n $untracked ]] && printf 'untracked generated page: %s\n' $untracked >&2
    echo "docs-check: docs/ is stale; run 'make docs' and commit docs/" >&2
    exit 1
  fi
  log "docs/ is up to date"
fi
