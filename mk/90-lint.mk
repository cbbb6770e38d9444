# Linting configurations: the TFLint ruleset in tflint-ruleset-libvirt/ (its own
# Go module), the schema tree it embeds, and tflint runs over the shipped
# configurations or any folder (docs/guides/linting-configurations.md).
TFLINT_VERSION  := $(shell sed -n 's/^TFLINT_VERSION=//p' scripts/install-tflint.sh)
TFLINT          ?= /var/cache/tfplv/tflint-$(TFLINT_VERSION)/tflint
LINT_PLUGIN_DIR ?= $(abspath tflint-ruleset-libvirt/.plugins)
LINT_CONFIG     ?= $(abspath tflint-ruleset-libvirt/lint.tflint.hcl)
LINT_DIRS       := examples modules environments

TEST_TARGETS += lint test-lint

.PHONY: lint-rules lint-plugin lint test-lint tflint

lint-rules: ## Regenerate the ruleset's schema tree (tflint-ruleset-libvirt/schema/schema.txt) from the provider's schema
	go run ./tools/lintschema

tflint: $(TFLINT) ## Build TFLint $(TFLINT_VERSION) from the Go module proxy into /var/cache/tfplv
$(TFLINT):
	bash scripts/install-tflint.sh

lint-plugin: ## Build tflint-ruleset-libvirt into LINT_PLUGIN_DIR (TFLint's plugin folder for `make lint`)
	cd tflint-ruleset-libvirt && CGO_ENABLED=0 go build -trimpath -o $(LINT_PLUGIN_DIR)/tflint-ruleset-libvirt .

# DIR=path lints that folder (and its subfolders) instead; the exit status is
# non-zero when anything is found.
lint: $(TFLINT) lint-plugin ## TFLint with the libvirt ruleset over examples/, modules/, environments/ (or DIR=path)
	@rc=0; for d in $(if $(DIR),$(DIR),$(LINT_DIRS)); do \
	  echo "=== tflint $$d"; \
	  TFLINT_PLUGIN_DIR=$(LINT_PLUGIN_DIR) $(TFLINT) --recursive --chdir "$$d" --config $(LINT_CONFIG) || rc=1; \
	done; exit $$rc

test-lint: $(TFLINT) ## Ruleset tests: rules, schema tree, and the real tflint over the bad and the shipped configurations
	cd tflint-ruleset-libvirt && TFLINT=$(TFLINT) go test ./... -count=1
	go test ./tools/lintschema -count=1
