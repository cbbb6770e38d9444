# The README's first example as a user runs it: scripts/test-readme.sh takes
# the "A VM in two minutes" block from README.md, changes only its image URL
# (a bootable copy of the test guest on a local HTTP server), prepares what
# the README says, applies, checks the ssh output's address, destroys.

TEST_TARGETS += test-readme

.PHONY: test-readme

test-readme: ## Apply README.md's "A VM in two minutes" as written (image URL local), check the address, destroy, nothing left
	bash scripts/test-readme.sh
