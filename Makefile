# Thin wrappers over scripts/. The two README commands: `make run` and `make test`.
.PHONY: run test build setup lint fuzz bench contracts package install clean

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

# The Debian package (build/package/credence_<version>_amd64.deb; docs/operating.md).
package: setup
	bash scripts/package.sh

# Installs the binary, the explorer, the ABIs, anvil and the service unit under PREFIX.
PREFIX ?= /usr/local
install: setup
	CREDENCE_BUILD_TARGETS=credence bash scripts/build.sh release
	cmake --install build/release --prefix $(PREFIX)

clean:
	rm -rf build
