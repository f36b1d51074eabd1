# Thin wrapper: install what is missing, configure, build, run. The real build is CMake.
# make demo   — the main job (see README): builds only what it runs (ncp2), not the tests
# make gui    — the CARNIVAL GUI (carnival) alone
# make test   — the whole test suite
# make bench  — the benchmarks (numbers go to docs/performance.md by hand)
BUILD ?= build
PRESET ?= default
JOBS ?= $(shell nproc)

.PHONY: all deps deps-bench deps-test build demo gui test test-all bench clean format

all: build

deps:
	@bash cmake/install-deps.sh core gui

deps-bench:
	@bash cmake/install-deps.sh bench

# The tests' own packages too (a one-node Slurm cluster: cmake/install-deps.sh's test group).
deps-test:
	@bash cmake/install-deps.sh test

$(BUILD)/build.ninja:
	cmake --preset $(PRESET)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The demo builds its one binary (unity sources: about 4.5 minutes from nothing on 2 cores,
# docs/performance.md), not the tests and benchmarks (issue 36).
demo: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target ncp2
	NCP2=$(BUILD)/bin/ncp2 bash cmake/demo.sh

gui: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target carnival

test: deps-test build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE slow

test-all: deps-test build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

bench: deps-bench build
	bash bench/run-all

clean:
	rm -rf $(BUILD)

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')
