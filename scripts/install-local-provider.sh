#!/usr/bin/env bash
# Builds the provider and installs it into a local filesystem mirror (unpacked
# layout) under both registry hostnames, then writes a CLI configuration that
# installs virtxml/libvirt (and siderolabs/talos, which another target drops into
# the same mirror) from that mirror only. Works for OpenTofu and Terraform:
#
#   TF_CLI_CONFIG_FILE=/var/cache/tfplv/tofurc-local tofu init
#
# Env: MIRROR_DIR (default /var/cache/tfplv/mirror), CLI_CONFIG (default
# /var/cache/tfplv/tofurc-local), VERSION (default: contents of ./VERSION).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
CACHE_DIR=/var/cache/tfplv
MIRROR_DIR="${MIRROR_DIR:-$CACHE_DIR/mirror}"
CLI_CONFIG="${CLI_CONFIG:-$CACHE_DIR/tofurc-local}"
VERSION="${VERSION:-$(tr -d ' \n' <VERSION)}"
GOOS_GOARCH="$(go env GOOS)_$(go env GOARCH)"
HOSTS=(registry.opentofu.org registry.terraform.io)

log() { printf '[install-local %s] %s\n' "$(date +%T)" "$*"; }

[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || {
  echo "VERSION '$VERSION' is not a semantic version (e.g. 0.1.0)" >&2
  exit 1
}

t=$SECONDS
build_dir=$(mktemp -d)
trap 'rm -rf "$build_dir"' EXIT
CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$VERSION" \
  -o "$build_dir/terraform-provider-libvirt_v$VERSION" .
log "built provider $VERSION in $((SECONDS - t))s"

for host in "${HOSTS[@]}"; do
  dir="$MIRROR_DIR/$host/virtxml/libvirt/$VERSION/$GOOS_GOARCH"
  mkdir -p "$dir"
  # Replace, not overwrite in place: a running tofu may still execute the old file.
  install -m 0755 "$build_dir/terraform-provider-libvirt_v$VERSION" "$dir/.new"
  mv -f "$dir/.new" "$dir/terraform-provider-libvirt_v$VERSION"
  log "installed $dir/terraform-provider-libvirt_v$VERSION"
done

# No direct {} block: this machine has no route to a registry, so anything
# outside the mirror fails at once with a clear message instead of a timeout.
mkdir -p "$(dirname "$CLI_CONFIG")"
cat >"$CLI_CONFIG.tmp" <<EOF
# Written by scripts/install-local-provider.sh: installs the locally built
# virtxml/libvirt provider (and the siderolabs/talos stand-in) from $MIRROR_DIR.
disable_checkpoint = true
provider_installation {
  filesystem_mirror {
    path    = "$MIRROR_DIR"
    include = [
      "registry.opentofu.org/virtxml/libvirt",
      "registry.terraform.io/virtxml/libvirt",
      "registry.opentofu.org/siderolabs/talos",
      "registry.terraform.io/siderolabs/talos",
    ]
  }
}
EOF
mv -f "$CLI_CONFIG.tmp" "$CLI_CONFIG"
log "wrote $CLI_CONFIG (use: export TF_CLI_CONFIG_FILE=$CLI_CONFIG)"
