# XML-tree schema engine: contract, state round trip, fuzz seeds, figures.

.PHONY: test-engine bench-engine fuzz-engine words

test-engine: ## Engine tests: corpus round trip, state round trip (msgpack/JSON), fuzz seeds, schema contract
	go test ./internal/xmlschema -count=1 -v -run 'TestCorpus|TestLargeDomainRoundTrip|FuzzDomainRoundTrip'
	go test ./internal/provider -count=1 -v -run 'TestSchemaContract'

bench-engine: ## Print engine figures: model build, large-domain conversion both ways, schema size and latency
	go test ./internal/xmlschema -run '^$$' -bench 'BenchmarkBuildDomainModel|BenchmarkDomain(To|From)ValuesLarge' -benchmem -count=1
	go test ./internal/provider -count=1 -v -run 'TestGetProviderSchemaFigures' -bench 'BenchmarkGetProviderSchema|BenchmarkPlanResourceChangeDomain' -benchmem

FUZZTIME ?= 60s
fuzz-engine: ## Fuzz XML -> value -> XML of domains for FUZZTIME (default 60s)
	go test ./internal/xmlschema -run '^$$' -fuzz FuzzDomainRoundTrip -fuzztime $(FUZZTIME) -parallel 1

words: ## Regenerate internal/xmlschema/words_gen.go (yes/no and on/off attributes) from libvirt's RelaxNG schemas in /usr/share/libvirt/schemas
	go run ./tools/rngwords
