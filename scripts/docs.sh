#!/usr/bin/env bash
# Generates docs/ from templates/ and examples/ with tfplugindocs, fully
# offline: the provider schema comes from `tofu providers schema -json` run
# against a provider binary built from this checkout (dev_overrides), so
# tfplugindocs never builds the provider itself nor downloads Terraform.
#
#   scripts/docs.sh             regenerate docs/
#   scripts/docs.sh --check     regenerate, then fail if docs/ differs from git,
#                               if tfplugindocs validate (registry rules) fails,
#                               or if the --examples checks fail
#   scripts/docs.sh --examples  only check the HCL in examples/provider and in
#                               the ```terraform blocks of templates/: tofu fmt
#                               and tofu validate against the built provider
#
# SOURCE=head generates from a clean clone of HEAD (schema, templates and
# examples) instead of the working tree, and copies docs/ back: useful while
# uncommitted work elsewhere does not compile or is not ready.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOFU=${TOFU:-/var/cache/tfplv/tofu-v1.12.6/tofu}
PROVIDER_ADDR=registry.opentofu.org/virtxml/libvirt
PROVIDER_NAME=libvirt

check=false examples=false generate=true
case "${1:-}" in
  --check) check=true examples=true ;;
  --examples) examples=true generate=false ;;
  "") ;;
  *) echo "usage: $0 [--check|--examples]" >&2; exit 2 ;;
esac

log() { printf '[docs] %s\n' "$*" >&2; }

if [[ ! -x $TOFU ]]; then
  echo "docs: OpenTofu not found at $TOFU (set TOFU=/path/to/tofu)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

src=$ROOT
if [[ ${SOURCE:-worktree} == head ]]; then
  git clone -q --no-hardlinks "$ROOT" "$work/src"
  src=$work/src
fi
# Templates, examples and docs/ are read and written in $src; with
# SOURCE=head the generated docs/ is copied back into the working tree.
cd "$src"
log "building the provider for its schema"
(cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$work/plugins/terraform-provider-libvirt" .)

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

# validate_examples DIR LABEL [snippet]: tofu fmt and validate one
# configuration. A snippet (a resource's example) may refer to resources it
# does not declare: OpenTofu then stops at those references, so such a
# snippet is only checked by tofu fmt, and the log says so.
validate_examples() {
  local dir=$1 label=$2 snippet=${3:-}
  if ! grep -q required_providers "$dir"/*.tf; then
    cp "$work/root/main.tf" "$dir/zz_required_providers.tf"
  fi
  if ! "$TOFU" fmt -check -diff "$dir" >"$work/fmt.log" 2>&1; then
    cat "$work/fmt.log" >&2
    echo "docs: $label is not formatted like tofu fmt" >&2
    return 1
  fi
  if ! (cd "$dir" && "$TOFU" validate -no-color -compact-warnings) >"$work/validate-hcl.log" 2>&1; then
    if [[ -n $snippet ]] && grep -q '^Error: ' "$work/validate-hcl.log" &&
      ! grep '^Error: ' "$work/validate-hcl.log" | grep -qv 'Reference to undeclared resource'; then
      log "examples: $label is formatted; NOT validated: it refers to resources it does not declare"
      return 0
    fi
    cat "$work/validate-hcl.log" >&2
    echo "docs: $label does not validate against the provider's schema" >&2
    return 1
  fi
  log "examples: $label validates"
}

# Every ```terraform block of a template; guides are one configuration each,
# the provider page's blocks are independent snippets.
check_examples() {
  local bad=0 f n dir
  mkdir -p "$work/ex/provider"
  cp "$src"/examples/provider/*.tf "$work/ex/provider/"
  validate_examples "$work/ex/provider" examples/provider || bad=1
  # Each resource's and data source's example is rendered into its page.
  for f in examples/resources/*/resource.tf examples/data-sources/*/data-source.tf; do
    [[ -f $f ]] || continue
    dir=$work/ex/$(dirname "$f" | tr / _)
    mkdir -p "$dir"
    cp "$f" "$dir/"
    # the import block example refers to the resource of the same example
    [[ -f $(dirname "$f")/import-by-string-id.tf ]] && cp "$(dirname "$f")/import-by-string-id.tf" "$dir/"
    validate_examples "$dir" "$f" snippet || bad=1
  done
  # Whole example configurations (quickstart, two-vms-nat): validated as they are.
  for f in examples/*/main.tf; do
    [[ -f $f ]] || continue
    dir=$work/ex/$(dirname "$f" | tr / _)
    mkdir -p "$dir"
    cp "$(dirname "$f")"/*.tf "$dir/"
    validate_examples "$dir" "$(dirname "$f")" || bad=1
  done
  for f in templates/guides/*.md.tmpl templates/index.md.tmpl; do
    [[ -f $f ]] || continue
    dir=$work/ex/$(basename "$f" .md.tmpl)
    mkdir -p "$dir"
    awk -v dir="$dir" -v splitmode="$([[ $f == templates/index.md.tmpl ]] && echo 1 || echo 0)" '
      /^ *```terraform *$/ {on=1; n++; match($0, /^ */); indent=RLENGTH; next}
      on && /^ *```/ {on=0; next}
      on {
        file = splitmode ? sprintf("%s/%02d/main.tf", dir, n) : sprintf("%s/main.tf", dir)
        if (splitmode) system("mkdir -p " dir "/" sprintf("%02d", n))
        print substr($0, indent + 1) > file  # blocks inside list items are indented
      }' "$f"
    if [[ $f == templates/index.md.tmpl ]]; then
      for n in "$dir"/*/; do
        [[ -f $n/main.tf ]] && { validate_examples "$n" "$f block $(basename "$n")" || bad=1; }
      done
    elif [[ -f $dir/main.tf ]]; then
      validate_examples "$dir" "$f" || bad=1
    fi
  done
  return $bad
}

if $examples && ! $generate; then
  check_examples
  exit
fi

# tfplugindocs looks the schema up by the short provider name.
jq --arg addr "$PROVIDER_ADDR" --arg name "$PROVIDER_NAME" '
  if .provider_schemas[$addr] == null then error("no schema for " + $addr) else . end
  | .provider_schemas = {($name): .provider_schemas[$addr]}' \
  "$work/schema-full.json" >"$work/schema.json"
log "schema: $(jq -r --arg n "$PROVIDER_NAME" '.provider_schemas[$n] |
  "\((.resource_schemas // {}) | length) resources, \((.data_source_schemas // {}) | length) data sources"' "$work/schema.json")"

tfplugindocs() { go run github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs "$@"; }

tfplugindocs generate \
  --provider-dir "$src" \
  --provider-name "$PROVIDER_NAME" \
  --rendered-provider-name "$PROVIDER_NAME" \
  --providers-schema "$work/schema.json" \
  --website-temp-dir "$work/website" >"$work/generate.log" 2>&1 || {
  cat "$work/generate.log" >&2
  exit 1
}
grep -i 'warn' "$work/generate.log" >&2 || true
# Repeated nested schemas (device addresses, character-device sources...)
# written once and linked; the misspelt-keys warning on every resource page.
(cd "$src" && go run ./tools/schemadoc -schema "$work/schema.json" -docs "$src/docs" -links docs-src/libvirt-doc-links.json)

log "generated $(find docs -name '*.md' | wc -l) pages under docs/"

if [[ $src != "$ROOT" ]] && ! $check; then
  rm -rf "$ROOT/docs"
  cp -r "$src/docs" "$ROOT/docs"
  log "copied docs/ generated from HEAD into the working tree"
fi

# Every problem is reported before failing: registry rules, example HCL,
# staleness.
problems=()
if tfplugindocs validate --provider-dir "$src" --provider-name "$PROVIDER_NAME" >"$work/validate.log" 2>&1; then
  log "tfplugindocs validate: docs/ follows the registry's rules"
else
  grep -vE '^\s*$|\[DEBUG\]|^running ' "$work/validate.log" >&2
  problems+=("tfplugindocs validate failed (registry rules, see above)")
fi

if $check; then
  # the registry refuses pages of 500,000 bytes; in-page schema links resolve
  if (cd "$src" && go run ./tools/schemadoc -check -docs "$src/docs" -max-bytes 450000) >"$work/size.log" 2>&1; then
    log "page sizes: $(grep -E 'resources/domain.md' "$work/size.log" | sed 's/.*docs\///')"
  else
    cat "$work/size.log" >&2
    problems+=("a page is over 450,000 bytes or has an in-page link without anchor (see above)")
  fi
fi

if $examples; then
  check_examples || problems+=("the HCL in examples/provider or templates/ does not match the provider's schema (see above)")
fi

if $check; then
  # Stale tracked pages show in the diff; pages for new resources that were
  # never committed show as untracked.
  untracked=$(git ls-files --others --exclude-standard -- docs/)
  if ! git diff --exit-code --stat -- docs/ >&2 || [[ -n $untracked ]]; then
    [[ -n $untracked ]] && printf 'untracked generated page: %s\n' $untracked >&2
    problems+=("docs/ is stale; run 'make docs' and commit docs/")
  else
    log "docs/ is up to date"
  fi
fi

if ((${#problems[@]} > 0)); then
  printf 'docs: %s\n' "${problems[@]}" >&2
  # Plain generation succeeded; only the checks make the problems fatal.
  if $check || $examples; then
    exit 1
  fi
fi
