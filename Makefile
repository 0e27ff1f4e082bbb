# Thin wrapper so the README's commands stay short; meson does the work.
.PHONY: all deps build demo check check-kernels clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@scripts/build.sh build

demo: build
	@scripts/demo.sh

check:
	@scripts/check.sh

check-kernels:
	@scripts/check-kernels.sh

clean:
	rm -rf build build-asan build-fuzz build-kernels
