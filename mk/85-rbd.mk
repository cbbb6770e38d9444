# Ceph RBD: a single-node Ceph cluster (scripts/testenv-ceph.sh) and the RBD
# acceptance tests: rbd pool + libvirt_secret, content into RBD through a
# block copy (docs/adr/0003-content-into-rbd.md), the test guest booting from
# an RBD disk, the pool seen from the second host (scripts/testenv-host2.sh).
TEST_TARGETS += test-rbd
CEPH_ENV  := /var/cache/tfplv/env-ceph.sh
HOST2_ENV := /var/cache/tfplv/env-host2.sh

.PHONY: testenv-ceph test-rbd

testenv-ceph: ## Start the single-node Ceph cluster for the RBD tests (idempotent; `bash scripts/testenv-ceph.sh stop` ends it)
	bash scripts/testenv-ceph.sh

# The second host must have started after the rbd driver was installed: one
# that reports rbd pools unsupported is restarted through its own script.
test-rbd: testenv-ceph ## RBD acceptance tests (starts Ceph and the second libvirt host first)
	bash scripts/testenv-host2.sh
	@if ! (source $(HOST2_ENV) && virsh -q -c "$$LIBVIRT_TEST_URI_B" pool-capabilities | grep -q "type='rbd' supported='yes'"); then \
	  echo "test-rbd: restarting the second host to load the rbd storage driver"; \
	  bash scripts/testenv-host2.sh stop && bash scripts/testenv-host2.sh; fi
	source $(TFPLV_ENV) && source $(CEPH_ENV) && source $(HOST2_ENV) && \
	  TF_ACC=1 go test ./internal/provider -run 'TestAccRBD_' -count=1 -v -timeout 30m
