# Thin wrappers over scripts/. The two README commands: `make run` and `make test`.
.PHONY: run test build setup lint fuzz bench contracts clean

run:
	bash scripts/run.sh

test:
	bash scripts/test.sh

setup:
	bash scripts/setup.sh

build: setup
	bash scripts/build.sh release

lint: build
	bash scripts/lint.sh build/release

fuzz: setup
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

bench: setup
	bash scripts/build.sh release -DCREDENCE_BENCH=ON
	bash scripts/bench.sh

clean:
	rm -rf build
