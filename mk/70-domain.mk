# libvirt_domain: unit tests of the plan logic and the acceptance suite
# against the real libvirtd (qemu/TCG guests without an OS, pool tfacc, OVMF
# for the UEFI test). The acceptance tests also run inside `make test-acc`.

.PHONY: test-domain test-acc-domain

test-domain: ## Unit tests of libvirt_domain's plan logic (ModifyPlan warnings/replace, KiB memory warning)
	go test ./internal/provider -run 'TestDomainModifyPlan|TestWarnSmallMemory' -count=1 -v

test-acc-domain: ## Acceptance tests of libvirt_domain (real libvirtd; builds the provider for the generate-config test)
	source $(TFPLV_ENV) && TF_ACC=1 go test ./internal/provider -run 'TestAccDomain_' -count=1 -v -timeout 30m
