# libvirt connection package (internal/libvirtconn): unit tests need nothing;
# the integration tests use the real local libvirtd, start a throw-away sshd on
# a loopback port, and stop/restart libvirtd (LIBVIRT_TEST_NO_RESTART=1 skips
# only the restart tests). They also run inside `make test-acc` (TF_ACC=1).
CONN_PKG := ./internal/libvirtconn/

.PHONY: test-conn test-conn-integration

test-conn: ## Unit tests of the libvirt connection package (URI parsing, known_hosts, error texts)
	go test $(CONN_PKG) -count=1

test-conn-integration: ## Connection tests against the real libvirtd: unix, test://, ssh via a real sshd, tcp/tls relays, restart
	LIBVIRT_TEST_URI=$${LIBVIRT_TEST_URI:-qemu:///system} go test $(CONN_PKG) -count=1 -v -timeout 10m
