# Terraform modules, environment roots and their tests.
TEST_TARGETS += test-modules test-lab-apply test-talos-boot

TALOS_STANDIN_VERSION := 0.11.0
MIRROR_DIR            ?= /var/cache/tfplv/mirror

.PHONY: test-modules test-lab-apply test-talos-boot install-talos-standin

test-modules: ## Module test suites (tofu test, terraform test under Terraform 1.11 and 1.15 in parallel; mock providers), validate of environments/*, fmt -check
	bash scripts/test-modules.sh

test-lab-apply: ## Real apply + destroy of environments/lab against the local libvirtd (needs `make testenv guest-image`)
	bash scripts/test-lab-apply.sh

test-talos-boot: ## talos-cluster's domains (BIOS and UEFI) with the test guest: x86-64-v2 CPU flags, SCSI WWN, UEFI, ACPI shutdown (needs `make testenv guest-image`)
	bash scripts/test-talos-boot.sh

# Tests only: the stand-in serves the siderolabs/talos schema and refuses to
# plan or apply anything. Never put it in a mirror used for deployments.
install-talos-standin: ## Install the schema-only siderolabs/talos stand-in into $(MIRROR_DIR) (tests only)
	@set -e; platform=$$(go env GOOS)_$$(go env GOARCH); \
	for host in registry.opentofu.org registry.terraform.io; do \
	  dir=$(MIRROR_DIR)/$$host/siderolabs/talos/$(TALOS_STANDIN_VERSION)/$$platform; mkdir -p $$dir; \
	  CGO_ENABLED=0 go build -trimpath -o $$dir/.new ./tools/talos-standin; \
	  mv -f $$dir/.new $$dir/terraform-provider-talos_v$(TALOS_STANDIN_VERSION); \
	  echo "installed $$dir/terraform-provider-talos_v$(TALOS_STANDIN_VERSION)"; \
	done
