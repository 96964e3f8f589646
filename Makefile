# The two commands of the README: `make demo` and `make check` (what CI and a reviewer run).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo check check-kernel blas-census slow-census test test-fast install lint bench bench-banks bench-scale bench-team clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info[:2] >= (3, 11), "the studio needs Python 3.11 or newer (3.11-3.13 tested)"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install whenever pyproject.toml changes. Everything: the test tools (dev), the embedding
# methods (embeddings), ir_datasets (irds) and the PostgreSQL client (team), so that no test skips for want of an extra. torch 2.13.0 goes first because this machine holds its CPU build on disk;
# left to the extra, pip would pick another version and download gigabytes of GPU libraries.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev,embeddings,irds,team]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/studio demo

# The tests whose numbers pass through BLAS or LAPACK, run again on another OpenBLAS kernel than
# the one this CPU gets (kernels add in other orders: the last digits move, and the tests must not
# care). tests/blas_tests.txt lists them, one node id a line, as `make blas-census` found them.
KERNEL_TESTS := tests/test_blas_kernel.py @tests/blas_tests.txt

# Everything a change must pass, cheapest first so a lint error fails in seconds, not minutes.
# Every extra is installed here: a test skipped for want of one fails (tests/extras.py).
check: $(STAMP)
	$(BIN)/ruff check studio tests benchmarks
	$(BIN)/ruff format --check studio tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy
	STUDIO_REQUIRE_EXTRAS=1 $(BIN)/python -m pytest -n 2
	$(MAKE) --no-print-directory check-kernel

check-kernel: $(STAMP)
	@kernel=$$($(BIN)/python tests/blas_kernel.py); \
	if [ -n "$$kernel" ]; then \
		echo "again on OpenBLAS's $$kernel kernel: the $$(wc -l < tests/blas_tests.txt) tests of tests/blas_tests.txt"; \
		OPENBLAS_CORETYPE=$$kernel $(BIN)/python -m pytest -n 2 -q $(KERNEL_TESTS); \
	else echo "no other OpenBLAS kernel known for this CPU: the second pass is skipped"; fi

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

# Finds the tests whose numbers pass through BLAS or LAPACK (tests/blas_census/): the whole suite
# once under a library that counts numpy's and scipy's OpenBLAS calls (x86-64 Linux, a C compiler).
CENSUS := .blas-census
blas-census: $(STAMP)
	rm -rf $(CENSUS) && mkdir -p $(CENSUS)
	$(BIN)/python tests/blas_census/shim.py $(CENSUS)/count.so
	LD_PRELOAD=$(abspath $(CENSUS))/count.so PYTHONPATH=tests STUDIO_REQUIRE_EXTRAS=1 \
		$(BIN)/python -m pytest -n 2 -q -p blas_census.plugin --blas-census $(CENSUS)/found \
		--deselect tests/test_listed_tests.py
	$(BIN)/python tests/blas_census/census.py $(CENSUS)/found tests/blas_tests.txt

# Lists the in-process tests over half a second (tests/slow_census.py): tests/tiers.py marks them
# `slow`, and the edit loop's tier leaves them to `make test` and `make check`.
slow-census: $(STAMP)
	PYTHONPATH=tests HYPOTHESIS_PROFILE=fast $(BIN)/python -m pytest -n 2 -q -m fast -p slow_census \
		--slow-census tests/slow_tests.txt

# The edit loop's tier: every test that starts no process, drives no terminal, serves on no
# socket, loads no model and takes under half a second (tests/tiers.py marks them `fast`), with the
# hypothesis profile `fast`.
test-fast: $(STAMP)
	HYPOTHESIS_PROFILE=fast $(BIN)/python -m pytest -n 2 -m fast

# The static part of `check`: lint, format, the layer contracts of pyproject.toml, types.
lint: $(STAMP)
	$(BIN)/ruff check studio tests benchmarks
	$(BIN)/ruff format --check studio tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy

# docs/cli.md, written from the command tree (tests/cli/test_reference.py fails when it is stale).
.PHONY: docs
docs: $(STAMP)
	$(BIN)/python -m studio.cli.reference > docs/cli.md.tmp
	mv docs/cli.md.tmp docs/cli.md

bench: $(STAMP)
	$(BIN)/python -m benchmarks.bench_import
	$(BIN)/python -m benchmarks.bench_eval
	$(BIN)/python -m benchmarks.bench_judge
	$(BIN)/python -m benchmarks.bench_tui

# The test-bank life cycle with the real local model on the whole sample pool (tens of minutes).
bench-banks: $(STAMP)
	$(BIN)/python -m benchmarks.bench_banks

# TREC-RAG size (9 M run rows) and 50 M run rows: ~4 GB of generated files, an hour or more.
bench-scale: $(STAMP)
	$(BIN)/python -m benchmarks.bench_scale

# 20 team members syncing through a PostgreSQL server started for the run (needs its binaries).
bench-team: $(STAMP)
	$(BIN)/python -m benchmarks.bench_team

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
