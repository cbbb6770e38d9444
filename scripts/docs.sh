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
#   scripts/docs.sh --examples  only check the HCL: the configurations in
#                               examples/ and every ```terraform/```hcl/```tf
#                               block of README.md, docs/ and templates/ (tofu
#                               fmt and tofu validate against the built
#                               provider; see "HCL checks" below)
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

# ---- Actions: Terraform only ----------------------------------------------
#
# OpenTofu knows no actions: its schema has none, and `action` blocks do not
# validate with it. The action schemas come from Terraform 1.14+ (the test
# environment's TERRAFORM_115) reading the same build, added to the schema
# tfplugindocs renders from; examples/actions and examples/list-resources are
# checked with it (tf_examples below), and so are the documentation blocks
# marked `terraform` (actions, imports by identity, list blocks).
TERRAFORM=${TERRAFORM:-${TERRAFORM_115:-/var/cache/tfplv/terraform-1.15.9}}
TF_PROVIDER_ADDR=registry.terraform.io/virtxml/libvirt
if [[ ! -x $TERRAFORM ]]; then
  echo "docs: Terraform 1.14+ not found at $TERRAFORM (set TERRAFORM=/path/to/terraform): it reads the action schemas" >&2
  exit 1
fi
mkdir -p "$work/tf-root"
cat >"$work/terraformrc" <<EOF
disable_checkpoint = true
provider_installation {
  dev_overrides {
    "$TF_PROVIDER_ADDR" = "$work/plugins"
  }
  filesystem_mirror {
    path = "$work/empty-mirror"
  }
}
EOF
sed "s|$PROVIDER_ADDR|$TF_PROVIDER_ADDR|" "$work/root/main.tf" >"$work/tf-root/main.tf"
# tf_run DIR ARGS...: Terraform in DIR with the provider under dev_overrides.
tf_run() {
  local dir=$1
  shift
  (cd "$dir" && TF_CLI_CONFIG_FILE="$work/terraformrc" "$TERRAFORM" "$@")
}
log "reading actions, identities and list resources with $("$TERRAFORM" version | head -1)"
tf_run "$work/tf-root" providers schema -json >"$work/schema-tf.json" 2>"$work/schema.err" || {
  cat "$work/schema.err" >&2
  exit 1
}
jq --arg addr "$PROVIDER_ADDR" --arg tfaddr "$TF_PROVIDER_ADDR" --slurpfile tf "$work/schema-tf.json" '
  .provider_schemas[$addr].action_schemas = ($tf[0].provider_schemas[$tfaddr].action_schemas // {})' \
  "$work/schema-full.json" >"$work/schema-merged.json"
mv "$work/schema-merged.json" "$work/schema-full.json"


# tf_validate DIR LABEL: terraform validate -query DIR (its *.tf and
# *.tfquery.hcl files) with the provider under dev_overrides.
tf_validate() {
  local dir=$1 label=$2
  cp "$work/tf-root/main.tf" "$dir/zz_required_providers.tf"
  if ! tf_run "$dir" validate -no-color -query >"$work/tf-validate.log" 2>&1; then
    cat "$work/tf-validate.log" >&2
    echo "docs: $label does not validate with Terraform against the provider's schema" >&2
    return 1
  fi
}

# tf_examples: terraform fmt -check and validate for the examples only
# Terraform understands: each examples/actions configuration and each list
# resource's query file.
tf_examples() {
  local f dir bad=0
  for f in examples/actions/*/action.tf examples/list-resources/*/list-resource.tfquery.hcl; do
    [[ -f $f ]] || continue
    dir=$work/tf-ex/$(dirname "$f" | tr / _)
    mkdir -p "$dir"
    cp "$(dirname "$f")"/* "$dir/"
    if ! "$TERRAFORM" fmt -check -diff "$dir" >"$work/tf-fmt.log" 2>&1; then
      cat "$work/tf-fmt.log" >&2
      echo "docs: $f is not formatted like terraform fmt" >&2
      bad=1
    fi
    if tf_validate "$dir" "$f (Terraform)"; then
      log "hcl: $f validates (Terraform)"
    else
      bad=1
    fi
  done
  return $bad
}

# ---- HCL checks: examples/ and every HCL block of the documentation --------
#
# tofu fmt -check and tofu validate, against the provider built above, for
#   - the configurations in examples/ (examples/provider, each resource's and
#     data source's example with its import example, examples/*/main.tf);
#   - every ```terraform, ```hcl and ```tf block of README.md, docs/ (guides,
#     resources, data-sources, adr, the provider page) and templates/.
#
# A documentation block is a whole configuration unless the line before its
# fence (blank lines aside) is a marker, an HTML comment that renders
# invisibly on GitHub and on the registries:
#
#   <!-- docs-check: DIRECTIVE; DIRECTIVE ... -->
#
#   fragment TYPE[.ATTR...]  the block is attribute lines of a TYPE resource
#                            (of its nested object ATTR... when given). It is
#                            validated inside `resource "TYPE" "fragment_N"`,
#                            whose required attributes the block does not set
#                            get placeholders from the schema. What it refers
#                            to comes from page-config (below).
#   module-stub PATH         a `module` block's local source PATH is an empty
#                            module that requires this provider (the guide's
#                            own module is not in this repository); tofu get
#                            installs it, then validate checks the call.
#   resource-stub TYPE.NAME  the block refers to a resource the page declares
#                            elsewhere in prose: `resource "TYPE" "NAME"` with
#                            placeholders for its required attributes is
#                            validated beside it.
#   page-config              the block is part of the page's configuration:
#                            every page-config block of the file is validated
#                            together, as one configuration.
#   terraform                the block is Terraform's (1.14+: an `action`,
#                            an `import` by `identity`, `list` blocks of a
#                            *.tfquery.hcl file): OpenTofu knows none of them,
#                            so `terraform validate -query` (Terraform 1.15)
#                            checks it against the same build; with
#                            page-config, together with the page's other
#                            page-config blocks (which OpenTofu validates too).
#   dmacvicar VERSION        a configuration for dmacvicar/libvirt VERSION
#                            (what a user moves from): validated against
#                            that release when it is at hand (see below).
#   not validated: REASON    tofu fmt only, for blocks that are deliberately
#                            not this provider's configuration (a dmacvicar
#                            0.8 configuration users come from, another
#                            provider's required_providers); REASON is printed.
#
# In templates/, a `{{ tffile "PATH" }}` line is the block tfplugindocs renders
# from PATH (a marker before it applies), so a template's blocks are its
# page's blocks. tfplugindocs renders a resource's import example (after the
# sentence "...can be used with the `id` attribute") below its Example Usage,
# on pages without a template that could carry a marker: such a block and
# the page's first block are page-config implicitly. Its import-by-identity
# example (after "...can be used with the `identity` attribute") is
# `terraform; page-config` implicitly (OpenTofu has no identities).
#
# Other providers and modules: a block that needs a provider other than this
# one or a module from a registry cannot be validated offline: it is marked
# `not validated` with its reason (fmt still runs); a local module source gets
# a module-stub. Blocks with the same assembled configuration (a template's
# block and the page generated from it) are validated once.
#
# The summary prints, per file, the blocks checked, the fragments among them,
# and the blocks not validated with their reasons.

# tofu_validate DIR LABEL: tofu validate DIR (tofu get first when DIR calls
# modules); prints the diagnostics and fails when it does not validate. HOME
# is a folder with what the README tells a user to have there: an SSH public
# key in ~/.ssh/id_ed25519.pub (file() reads it at validate).
tofu_validate() {
  local dir=$1 label=$2
  # tofu get installs local modules only (tofu init would look for this
  # provider too, which dev_overrides serves without installing).
  if grep -qs '^module ' "$dir"/*.tf &&
    ! (cd "$dir" && "$TOFU" get -no-color) >"$work/init-hcl.log" 2>&1; then
    cat "$work/init-hcl.log" >&2
    echo "docs: $label: tofu get (modules) failed" >&2
    return 1
  fi
  if ! (cd "$dir" && HOME=$work/home "$TOFU" validate -no-color -compact-warnings) >"$work/validate-hcl.log" 2>&1; then
    cat "$work/validate-hcl.log" >&2
    echo "docs: $label does not validate against the provider's schema" >&2
    return 1
  fi
}


# tofu_fmt_check DIR LABEL
tofu_fmt_check() {
  local dir=$1 label=$2
  if ! "$TOFU" fmt -check -diff "$dir" >"$work/fmt.log" 2>&1; then
    cat "$work/fmt.log" >&2
    echo "docs: $label is not formatted like tofu fmt" >&2
    return 1
  fi
}

# add_required_providers DIR: the provider's source, unless DIR declares one.
add_required_providers() {
  grep -qs required_providers "$1"/*.tf || cp "$work/root/main.tf" "$1/zz_required_providers.tf"
}

# validate_example_dir DIR LABEL: fmt and validate one examples/ configuration.
validate_example_dir() {
  local dir=$1 label=$2
  add_required_providers "$dir"
  tofu_fmt_check "$dir" "$label" || return 1
  tofu_validate "$dir" "$label" || return 1
  log "hcl: $label validates"
}

check_example_dirs() {
  local bad=0 f dir
  mkdir -p "$work/ex/provider"
  cp "$src"/examples/provider/*.tf "$work/ex/provider/"
  validate_example_dir "$work/ex/provider" examples/provider || bad=1
  # Each resource's and data source's example is rendered into its page, the
  # import example beside it (it imports into the example's resource).
  for f in examples/resources/*/resource.tf examples/data-sources/*/data-source.tf; do
    [[ -f $f ]] || continue
    dir=$work/ex/$(dirname "$f" | tr / _)
    mkdir -p "$dir"
    cp "$f" "$dir/"
    [[ -f $(dirname "$f")/import-by-string-id.tf ]] && cp "$(dirname "$f")/import-by-string-id.tf" "$dir/"
    validate_example_dir "$dir" "$f" || bad=1
  done
  # Whole example configurations (quickstart, two-vms-nat, ...).
  for f in examples/*/main.tf; do
    [[ -f $f ]] || continue
    dir=$work/ex/$(dirname "$f" | tr / _)
    mkdir -p "$dir"
    cp "$(dirname "$f")"/*.tf "$dir/"
    validate_example_dir "$dir" "$(dirname "$f")" || bad=1
  done
  return $bad
}

# required_stub_attrs TYPE resource|data [SCHEMA ADDR]: `name = placeholder`
# lines for the schema's required attributes of a primitive type (this
# provider's schema unless another provider's SCHEMA file and ADDR are given).
required_stub_attrs() {
  jq -r --arg addr "${4:-$PROVIDER_ADDR}" --arg t "$1" --arg kind "$2" '
    .provider_schemas[$addr] | (if $kind == "data" then .data_source_schemas else .resource_schemas end)[$t]
    | if . == null then error("no \($kind) type \($t) in the schema") else . end
    | .block.attributes // {} | to_entries[] | select(.value.required == true)
    | .key + " = " + ({"\"string\"": "\"docs-check\"", "\"number\"": "1", "\"bool\"": "true"}[.value.type | tojson] // "null")' \
    "${3:-$work/schema-full.json}"
}

# ---- dmacvicar/libvirt: the configurations users come from ---------------
#
# The migration guide shows the configuration a user starts from. Where the
# real predecessor is at hand (the test peers, ../shared/peers), such a block
# (marker `dmacvicar VERSION`) is validated by OpenTofu against that very
# release, installed from a local filesystem mirror; elsewhere it is reported
# as not validated, with that reason.
PEERS=${PEERS:-$ROOT/../shared/peers/dmacvicar-libvirt}
DM_ADDR=registry.opentofu.org/dmacvicar/libvirt
declare -A dm_ready=()
# dm_prepare VERSION: the release in $work/dm-mirror (digest checked against
# the peers' SHA256SUMS) and its schema in $work/dm-VERSION/schema.json.
dm_prepare() {
  local v=$1 bin=terraform-provider-libvirt_v$1 d
  [[ -n ${dm_ready[$v]:-} ]] && return 0
  [[ -f $PEERS/$bin.xz && -f $PEERS/SHA256SUMS ]] || return 1
  d=$work/dm-mirror/$DM_ADDR/$v/linux_amd64
  mkdir -p "$d" "$work/dm-$v"
  xz -dc "$PEERS/$bin.xz" >"$d/$bin" && chmod +x "$d/$bin"
  (cd "$d" && grep " $bin\$" "$PEERS/SHA256SUMS" | sha256sum -c --quiet) || {
    echo "docs: $PEERS/$bin.xz does not match its SHA256SUMS" >&2
    return 1
  }
  printf 'provider_installation {\n  filesystem_mirror {\n    path    = "%s"\n    include = ["%s"]\n  }\n}\n' \
    "$work/dm-mirror" "$DM_ADDR" >"$work/dm-tofurc"
  dm_required_providers "$v" >"$work/dm-$v/main.tf"
  (cd "$work/dm-$v" && TF_CLI_CONFIG_FILE=$work/dm-tofurc "$TOFU" init -no-color -input=false &&
    TF_CLI_CONFIG_FILE=$work/dm-tofurc "$TOFU" providers schema -json >schema.json) >"$work/dm-init.log" 2>&1 || {
    cat "$work/dm-init.log" >&2
    return 1
  }
  dm_ready[$v]=1
}
dm_required_providers() {
  printf 'terraform {\n  required_providers {\n    libvirt = {\n      source  = "dmacvicar/libvirt"\n      version = "= %s"\n    }\n  }\n}\n' "$1"
}
# dm_validate DIR VERSION LABEL: tofu init + validate with the real release.
dm_validate() {
  local dir=$1 v=$2 label=$3
  grep -qs required_providers "$dir"/*.tf || dm_required_providers "$v" >"$dir/zz_required_providers.tf"
  if ! (cd "$dir" && TF_CLI_CONFIG_FILE=$work/dm-tofurc "$TOFU" init -no-color -input=false &&
    HOME=$work/home TF_CLI_CONFIG_FILE=$work/dm-tofurc "$TOFU" validate -no-color) >"$work/dm-validate.log" 2>&1; then
    cat "$work/dm-validate.log" >&2
    echo "docs: $label does not validate against dmacvicar/libvirt $v" >&2
    return 1
  fi
}

# write_block_unit DIR ID N: the block ID, the unit's Nth, as a file of the
# configuration DIR: wrapped when it is a fragment; module stubs beside it.
write_block_unit() {
  local dir=$1 id=$2 n=$3 d word frag="" path=() set_attrs line i stub dm=""
  local -a modules=() stubs=()
  IFS=';' read -ra dirs <<<"${block_marker[$id]}"
  for d in "${dirs[@]}"; do
    d=$(sed 's/^ *//; s/ *$//' <<<"$d")
    case $d in
      fragment\ *) frag=${d#fragment } ;;
      module-stub\ *) modules+=("${d#module-stub }") ;;
      resource-stub\ *) stubs+=("${d#resource-stub }") ;;
      dmacvicar\ *) dm=${d#dmacvicar } ;;
    esac
  done
  if [[ -z $frag ]] && grep -q '^list "' "$blocks/$id.tf"; then
    cp "$blocks/$id.tf" "$dir/block_$id.tfquery.hcl" # Terraform reads list blocks from query files
  elif [[ -z $frag ]]; then
    cp "$blocks/$id.tf" "$dir/block_$id.tf"
  else
    IFS=. read -ra path <<<"$frag"
    set_attrs=$(sed -n 's/^\([a-z_][a-z0-9_]*\) *=.*/\1/p' "$blocks/$id.tf")
    {
      echo "resource \"${path[0]}\" \"fragment_$n\" {"
      required_stub_attrs "${path[0]}" resource | while read -r line; do
        ((${#path[@]} == 1)) && grep -qx "${line%% =*}" <<<"$set_attrs" && continue
        echo "$line"
      done
      for ((i = 1; i < ${#path[@]}; i++)); do echo "${path[i]} = {"; done
      cat "$blocks/$id.tf"
      for ((i = 1; i < ${#path[@]}; i++)); do echo "}"; done
      echo "}"
    } >"$dir/block_$id.tf"
  fi
  for word in "${modules[@]}"; do
    mkdir -p "$dir/$word"
    cp "$work/root/main.tf" "$dir/$word/main.tf"
  done
  for stub in "${stubs[@]}"; do
    {
      echo "resource \"${stub%%.*}\" \"${stub#*.}\" {"
      if [[ -n $dm ]]; then
        required_stub_attrs "${stub%%.*}" resource "$work/dm-$dm/schema.json" "$DM_ADDR"
      else
        required_stub_attrs "${stub%%.*}" resource
      fi
      echo "}"
    } >"$dir/stub_${stub//./_}.tf"
  done
}

check_doc_blocks() {
  local f id file line marker bad=0 unit key hash dir label i d v
  local -a dirs=()
  local -a unformatted=()
  blocks=$work/blocks
  rm -rf "$blocks" && mkdir -p "$blocks"
  # Extract: $blocks/NNNN.tf (indentation of list items removed) and
  # index.tsv: id, file, line, marker directives.
  awk -v out="$blocks" '
    FNR == 1 { on = 0; marker = ""; prev = "" }
    !on && /^ *```(terraform|hcl|tf) *$/ {
      on = 1; n++; id = sprintf("%04d", n)
      match($0, /^ */); indent = RLENGTH
      m = marker
      if (prev ~ /can be used with the `id` attribute/) m = "import-example"
      if (prev ~ /can be used with the `identity` attribute/) m = "identity-example"
      printf "%s\t%s\t%d\t%s\n", id, FILENAME, FNR, m > (out "/index.tsv")
      file = out "/" id ".tf"; printf "" > file
      next
    }
    on && /^ *```/ { on = 0; close(file); marker = ""; prev = ""; next }
    on { print substr($0, indent + 1) > file; next }
    /^\{\{ *tffile "[^"]*" *\}\}$/ {
      path = $0; sub(/^\{\{ *tffile "/, "", path); sub(/" *\}\}$/, "", path)
      n++; id = sprintf("%04d", n)
      printf "%s\t%s\t%d\t%s\n", id, FILENAME, FNR, marker > (out "/index.tsv")
      file = out "/" id ".tf"; printf "" > file
      got = 0
      while ((getline l < path) > 0) { print l > file; got = 1 }
      if (!got) { printf "docs: %s:%d: tffile %s is missing or empty\n", FILENAME, FNR, path > "/dev/stderr"; missing = 1 }
      close(path); close(file); marker = ""; prev = ""
      next
    }
    END { exit missing }
    /^[ \t]*$/ { next }
    {
      marker = ""
      if ($0 ~ /^ *<!-- *docs-check:.*-->/) {
        marker = $0; sub(/^ *<!-- *docs-check: */, "", marker); sub(/ *--> *$/, "", marker)
      }
      prev = $0
    }' README.md $(find docs templates -type f \( -name '*.md' -o -name '*.md.tmpl' \) | LC_ALL=C sort) || bad=1
  declare -gA block_file=() block_line=() block_marker=()
  local -A unit_blocks=() unit_result=() seen_hash=() first_block=() reason=() id_import=()
  local -a units=()
  while IFS=$'\t' read -r id file line marker; do
    block_file[$id]=$file block_line[$id]=$line block_marker[$id]=$marker
    # A misspelt directive would silently check less: refuse it.
    IFS=';' read -ra dirs <<<"$marker"
    for d in "${dirs[@]}"; do
      [[ $d =~ ^\ *(fragment\ [a-z_]+(\.[a-z_]+)*|module-stub\ [^\ ]+|resource-stub\ [a-z_]+\.[a-z0-9_]+|dmacvicar\ [0-9.]+|page-config|terraform|not\ validated:\ .+|import-example|identity-example)\ *$ ]] || {
        echo "docs: $file:$line: unknown docs-check directive '$d' (fragment TYPE[.ATTR...], module-stub PATH, resource-stub TYPE.NAME, dmacvicar VERSION, page-config, terraform, not validated: REASON)" >&2
        bad=1
      }
    done
    [[ -n ${first_block[$file]:-} ]] || first_block[$file]=$id
    if [[ $marker == import-example || $marker == identity-example ]]; then
      [[ $marker == import-example ]] && id_import[$id]=1
      block_marker[$id]=page-config
      [[ $marker == identity-example ]] && block_marker[$id]="terraform; page-config"
      block_marker[${first_block[$file]}]="${block_marker[${first_block[$file]}]:+${block_marker[${first_block[$file]}]}; }page-config"
    fi
  done <"$blocks/index.tsv"

  # fmt: every block as written.
  for id in $(cut -f1 "$blocks/index.tsv"); do
    mkdir -p "$work/fmt/$id"
    cp "$blocks/$id.tf" "$work/fmt/$id/block.tf"
    tofu_fmt_check "$work/fmt/$id" "${block_file[$id]}:${block_line[$id]}" || unformatted+=("${block_file[$id]}:${block_line[$id]}")
  done
  ((${#unformatted[@]} == 0)) || bad=1

  # Validation units: each block on its own, or its page's configuration.
  for id in $(cut -f1 "$blocks/index.tsv"); do
    marker=${block_marker[$id]}
    if [[ $marker =~ (^|;)\ *not\ validated:\ *(.*)$ ]]; then
      reason[$id]=${BASH_REMATCH[2]}
      continue
    fi
    local cli=""
    [[ $marker =~ (^|;)\ *terraform\ *(;|$) ]] && cli=tf
    if [[ $marker =~ (^|;)\ *dmacvicar\ ([0-9.]+)\ *(;|$) ]]; then
      cli=dm${BASH_REMATCH[2]}
      if ! dm_prepare "${BASH_REMATCH[2]}"; then
        reason[$id]="the dmacvicar/libvirt ${BASH_REMATCH[2]} configuration users come from; its release is not at $PEERS"
        continue
      fi
    fi
    if [[ $marker =~ (^|;)\ *page-config\ *(;|$) ]]; then
      unit="${cli}page:${block_file[$id]}"
    else
      unit="${cli}block:$id"
    fi
    [[ -n ${unit_blocks[$unit]:-} ]] || units+=("$unit")
    unit_blocks[$unit]+=" $id"
  done
  # A Terraform page unit holds the page's OpenTofu page-config blocks too
  # (an import by identity refers to the page's example resource), except
  # the import by id, which imports the same resource.
  for unit in "${units[@]}"; do
    [[ $unit == tfpage:* ]] || continue
    for id in ${unit_blocks[page:${unit#tfpage:}]:-}; do
      [[ -n ${id_import[$id]:-} ]] || unit_blocks[$unit]="$id ${unit_blocks[$unit]}"
    done
  done
  for unit in "${units[@]}"; do
    dir=$work/units/$(tr -c 'a-zA-Z0-9\n' _ <<<"$unit")
    mkdir -p "$dir"
    i=0
    for id in ${unit_blocks[$unit]}; do
      i=$((i + 1))
      write_block_unit "$dir" "$id" "$i" || bad=1
    done
    [[ $unit == dm* ]] || add_required_providers "$dir"
    set -- ${unit_blocks[$unit]}
    label="${block_file[$1]}:$(for id in "$@"; do printf '%s,' "${block_line[$id]}"; done | sed 's/,$//')"
    hash=$( (echo "${unit%%:*}" && cd "$dir" && find . -type f | LC_ALL=C sort | xargs cat) | sha256sum | cut -c1-16)
    if [[ -n ${seen_hash[$hash]:-} ]]; then
      unit_result[$unit]=${unit_result[${seen_hash[$hash]}]}
      continue
    fi
    seen_hash[$hash]=$unit
    local valid=false
    if [[ $unit == tf* ]]; then
      tf_validate "$dir" "$label (Terraform)" && valid=true
    elif [[ $unit == dm* ]]; then
      v=${unit#dm} v=${v%%block:*}
      dm_validate "$dir" "$v" "$label (dmacvicar/libvirt $v)" && valid=true
    else
      tofu_validate "$dir" "$label" && valid=true
    fi
    if $valid; then
      unit_result[$unit]=ok
    else
      unit_result[$unit]=FAILED
      echo "docs: the configuration tofu validated is in the log above; its files:" >&2
      (cd "$dir" && for f in $(find . -name '*.tf' | LC_ALL=C sort); do echo "--- $f" >&2; cat "$f" >&2; done)
      bad=1
    fi
  done

  # Summary per file.
  local -A n_blocks=() n_frag=() n_ok=() n_tf=() n_dm=() n_failed=() notes=()
  local -a files=()
  for id in $(cut -f1 "$blocks/index.tsv"); do
    file=${block_file[$id]}
    [[ -n ${n_blocks[$file]:-} ]] || files+=("$file")
    n_blocks[$file]=$((${n_blocks[$file]:-0} + 1))
    [[ ${block_marker[$id]} =~ (^|;)\ *fragment\  ]] && n_frag[$file]=$((${n_frag[$file]:-0} + 1))
    if [[ -n ${reason[$id]:-} ]]; then
      notes[$file]+="; line ${block_line[$id]} not validated: ${reason[$id]}"
      continue
    fi
    local result="" by_tf=false by_dm=false
    for unit in "${units[@]}"; do
      [[ " ${unit_blocks[$unit]} " == *" $id "* ]] || continue
      [[ $unit == tf* && ${block_marker[$id]} =~ (^|;)\ *terraform\ *(;|$) ]] && by_tf=true
      [[ $unit == dm* ]] && by_dm=true
      [[ $result == FAILED ]] || result=${unit_result[$unit]}
    done
    if [[ $result == ok ]]; then
      n_ok[$file]=$((${n_ok[$file]:-0} + 1))
      $by_tf && n_tf[$file]=$((${n_tf[$file]:-0} + 1))
      $by_dm && n_dm[$file]=$((${n_dm[$file]:-0} + 1))
    else
      n_failed[$file]=$((${n_failed[$file]:-0} + 1))
    fi
  done
  local total=0 total_ok=0 total_frag=0 total_tf=0 total_dm=0 total_skip=0 total_failed=0
  for file in "${files[@]}"; do
    log "hcl: $file: ${n_blocks[$file]} block(s), ${n_ok[$file]:-0} validated${n_frag[$file]:+ (${n_frag[$file]} of them fragments)}${n_tf[$file]:+ (${n_tf[$file]} by Terraform)}${n_dm[$file]:+ (${n_dm[$file]} against the real dmacvicar/libvirt)}${n_failed[$file]:+, ${n_failed[$file]} FAILED}${notes[$file]:-}"
    total=$((total + n_blocks[$file])) total_ok=$((total_ok + ${n_ok[$file]:-0}))
    total_frag=$((total_frag + ${n_frag[$file]:-0})) total_failed=$((total_failed + ${n_failed[$file]:-0}))
    total_tf=$((total_tf + ${n_tf[$file]:-0})) total_dm=$((total_dm + ${n_dm[$file]:-0}))
  done
  total_skip=${#reason[@]}
  log "hcl: documentation: $total blocks in ${#files[@]} files: $total_ok validated ($total_frag fragments, $total_tf by Terraform 1.15, $total_dm against the real dmacvicar/libvirt), $total_skip not validated (reasons above), $total_failed failed; ${#unformatted[@]} not formatted like tofu fmt${unformatted[*]:+ (${unformatted[*]})}; ${#seen_hash[@]} distinct configurations ran tofu or terraform validate"
  return $bad
}

check_examples() {
  local bad=0
  mkdir -p "$work/home/.ssh"
  echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDocsCheckPlaceholderKeyOnly docs-check" >"$work/home/.ssh/id_ed25519.pub"
  check_example_dirs || bad=1
  tf_examples || bad=1
  check_doc_blocks || bad=1
  return $bad
}

if $examples && ! $generate; then
  check_examples
  exit
fi

# Resource identities and list resources are Terraform's (1.12, 1.14): OpenTofu's
# schema has neither, so they come from the Terraform schema read above for the
# actions (same build, same Terraform).
# tfplugindocs looks the schema up by the short provider name.
jq --arg addr "$PROVIDER_ADDR" --arg name "$PROVIDER_NAME" --slurpfile tf "$work/schema-tf.json" '
  if .provider_schemas[$addr] == null then error("no schema for " + $addr) else . end
  | ($tf[0].provider_schemas["registry.terraform.io/virtxml/libvirt"]) as $t
  | .provider_schemas = {($name): (.provider_schemas[$addr]
      + {resource_identity_schemas: ($t.resource_identity_schemas // {}), list_resource_schemas: ($t.list_resource_schemas // {})})}' \
  "$work/schema-full.json" >"$work/schema.json"
log "schema: $(jq -r --arg n "$PROVIDER_NAME" '.provider_schemas[$n] |
  "\((.resource_schemas // {}) | length) resources, \((.data_source_schemas // {}) | length) data sources, \((.action_schemas // {}) | length) actions"' "$work/schema.json")"

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
  check_examples || problems+=("the HCL in examples/, README.md, docs/ or templates/ is not formatted or does not validate (see above)")
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
