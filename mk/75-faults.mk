# Fault injection: libvirtd restarted and the provider killed during real
# applies (internal/provider/fault_acc_test.go, build tag `faults`), and the
# connection package's frozen-path and handshake cases. Prints the table of
# cases: how long the broken apply took, what was left outside the state,
# what the next apply did.

TEST_TARGETS += test-faults

.PHONY: test-faults

test-faults: ## Fault-injection layer against the real libvirtd (restarts libvirtd); prints its table
	set -o pipefail; source $(TFPLV_ENV) && TF_ACC=1 go test ./internal/libvirtconn -count=1 -v -run 'TestIntegrationFrozenPath|TestIntegrationKilledPath|TestHandshake' | grep -E '^(=== RUN|--- |ok|FAIL)|frozen|killed|handshake'
	source $(TFPLV_ENV) && TF_ACC=1 go test -tags faults ./internal/provider -count=1 -v -timeout 20m -run 'TestFault_'
