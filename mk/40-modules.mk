# Terraform modules, environment roots and their tests.
TEST_TARGETS += test-modules test-lab-apply

.PHONY: test-modules test-lab-apply

test-modules: ## Module test suites (tofu test + terraform test, mock providers), validate of environments/*, fmt -check
	bash scripts/test-modules.sh

test-lab-apply: ## Real apply + destroy of environments/lab against the local libvirtd (needs `make testenv guest-image`)
	bash scripts/test-lab-apply.sh
