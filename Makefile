# Thin wrapper so the README's commands stay short; meson does the work.
.PHONY: all deps build demo check check-kernels kernel-ext soak bench deb clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@scripts/build.sh build

demo: build
	@scripts/demo.sh

check:
	@scripts/check.sh

# The benchmark suite (see bench/run.py): about an hour on a quiet machine;
# BENCH_QUICK=1 for a ~8-minute smoke run, BENCH_WAIT=MIN to wait for a
# quiet machine first, BENCH_ARGS for anything else (--scenarios a,b).
bench: build
	@scripts/install-bench-deps.sh
	@bench/run.py --wait-quiet $${BENCH_WAIT:-0} $(if $(BENCH_QUICK),--quick) $(BENCH_ARGS)

# The Debian packages in build-deb/ (debian/; scripts/deb.sh), checked
# with lintian; DEB_BUILD_OPTIONS=nocheck skips the unit suite.
deb:
	@scripts/deb.sh

check-kernels:
	@scripts/check-kernels.sh

# The matrix's "ext" kernel (sched_ext, uclamp; tests/kernels/ext/) from
# Debian's linux-source-6.12, and scx_qos built against it: about 40
# minutes once, cached in build-kernels/ext/. Not part of make check.
kernel-ext:
	@scripts/build-kernel-ext.sh >/dev/null
	@scripts/build-scx-qos.sh

# A million short processes and 100,000 thread renames through one qosd
# (as root, several minutes; tests/integration/test-daemon-soak.sh): no
# event unanswered, no fd or memory growth, and a table of the run.
soak: build
	@meson test -C build --setup soak --suite soak --verbose

clean:
	rm -rf build build-asan build-fuzz build-kernels build-deb
