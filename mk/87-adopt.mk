# Adopting a whole host (internal/provider/adopt_host*_acc_test.go): a host
# prepared with virsh only is adopted with Terraform 1.15 (list resources,
# `terraform query -generate-config-out`, import by identity) and with
# OpenTofu (the plural data sources); both must plan imports only, then
# nothing. Prints the lines generated per object and the query times for
# the test's 8 domains and for 100 defined domains.

TEST_TARGETS += test-adopt-host

.PHONY: test-adopt-host

test-adopt-host: ## Whole-host adoption with Terraform 1.15 and OpenTofu (prints line counts and query times)
	source $(TFPLV_ENV) && TF_ACC=1 TFPLV_ADOPT_BENCH=1 go test ./internal/provider -count=1 -v -timeout 20m -run 'TestAccAdoptHost_'
