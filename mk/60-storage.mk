# Storage: libvirt_pool / libvirt_volume acceptance tests and the upload benchmark.

.PHONY: test-acc-storage bench-upload

test-acc-storage: ## Acceptance tests of libvirt_pool and libvirt_volume (real libvirtd, pool tfacc)
	source $(TFPLV_ENV) && TF_ACC=1 go test ./internal/provider -run 'TestAcc(Pool|Volume|StorageExamples)_' -count=1 -v -timeout 30m

bench-upload: ## Upload 1 GiB, a sparse 4 GiB image and 512 MiB over qemu+ssh via the provider and via virsh vol-upload (MiB/s, ratio, peak RSS); then the whole tofu apply of the 1 GiB upload and of an empty volume against virsh, same rounds (ranges, ratios, load)
	source $(TFPLV_ENV) && STORAGE_BENCH=1 go test ./internal/storage -run 'TestUploadThroughput|TestSparseUploadThroughput|TestUploadThroughputSSH|TestApplyThroughput' -count=1 -v -timeout 30m
