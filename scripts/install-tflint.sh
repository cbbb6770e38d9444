#!/usr/bin/env bash
# Builds TFLint from the Go module proxy into /var/cache/tfplv/tflint-<version>
# (tflint --init downloads plugins from GitHub, which the test machine cannot
# reach; the libvirt ruleset is built from this repository instead, see
# mk/90-lint.mk). Prints the binary's path. Does nothing when it is there.
set -euo pipefail

TFLINT_VERSION=v0.64.0
TFLINT_BIN=/var/cache/tfplv/tflint-$TFLINT_VERSION/tflint

if [[ ! -x "$TFLINT_BIN" ]] || ! "$TFLINT_BIN" --version >/dev/null 2>&1; then
  mkdir -p "$(dirname "$TFLINT_BIN")"
  GOBIN="$(dirname "$TFLINT_BIN")" CGO_ENABLED=0 go install -trimpath "github.com/terraform-linters/tflint@$TFLINT_VERSION" >&2
fi
echo "$TFLINT_BIN"
