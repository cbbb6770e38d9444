# Two libvirt hosts: the second libvirtd of scripts/testenv-host2.sh (host b,
# qemu+tcp://127.0.0.1:16600/system, same file system as host a) and the
# tests that need it (internal/provider/hosts_*acc_test.go): the per-resource
# host, moving domains between hosts (live migration of the booted test
# guest), plans refused for disks host b does not see.

TEST_TARGETS += test-hosts
TFPLV_ENV_HOST2 := /var/cache/tfplv/env-host2.sh

.PHONY: testenv-host2 testenv-host2-stop test-hosts

testenv-host2: ## Start (or keep) the second libvirt host and write /var/cache/tfplv/env-host2.sh (idempotent)
	bash scripts/testenv-host2.sh

testenv-host2-stop: ## Stop the second libvirt host (its domains are destroyed)
	bash scripts/testenv-host2.sh stop

test-hosts: ## Two-host layer: starts host b, then the several-hosts, migration and two-host download tests (prints migration times)
	bash scripts/testenv-host2.sh
	source $(TFPLV_ENV) && source $(TFPLV_ENV_HOST2) && TF_ACC=1 go test ./internal/provider -count=1 -v -timeout 30m -run 'TestAccHosts_|TestAccVolume_sharedDownloadTwoHosts'
