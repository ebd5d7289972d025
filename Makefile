# Two entry points for a fresh machine with only python3, pip and make:
#   make demo   creates .venv, installs rosenblatt, runs the embedded demo
#   make test   creates .venv with the dev extras, runs ruff (lint, format), mypy and every
#               test (the API reference's Sphinx build among them)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test format clean clean-cache bench browser docs kernels

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# pip install builds the compiled kernels ahead of time (setup.py, about a minute on two
# cores): a change to their sources (listed once, in the file below) reinstalls, so the
# library always matches them
KERNEL_LIST := src/rosenblatt/engine/kernels/sources.txt
KERNEL_SOURCES := setup.py $(addprefix src/rosenblatt/,$(shell grep -v '^\#' $(KERNEL_LIST)))
# --quiet hides the build's output: one line on standard error says when the library is not
# in use (the build failed: why) and that numba's JIT runs the kernels instead
KERNELS_CHECK := $(PY) -c "from rosenblatt.engine.kernels.loader import warn_if_unused; warn_if_unused()"

$(VENV)/.installed: pyproject.toml $(KERNEL_SOURCES) | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e .
	@$(KERNELS_CHECK)
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(KERNEL_SOURCES) | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e ".[dev]"
	@$(KERNELS_CHECK)
	touch $@ $(VENV)/.installed

# The kernels' library alone, rebuilt in place (what pip install does), for a kernel change;
# ROSENBLATT_CPU=generic builds it for any CPU of the architecture (what a portable wheel holds:
# one library per instruction-set level, x86-64, x86-64-v3 and x86-64-v4; the loader takes the
# best the running CPU has)
kernels: | $(VENV)/bin/python
	$(PY) -m rosenblatt.engine.kernels.ahead_of_time

# `rosenblatt warmup` runs every variant of the compiled loops once: from the library
# built at install it loads in milliseconds; without it numba compiles them and caches them
demo: $(VENV)/.installed
	$(VENV)/bin/rosenblatt warmup
	$(VENV)/bin/rosenblatt demo

# The playground's browser tests drive Debian's chromium (Playwright's own browser
# downloads are unreachable here); as root (CI) it is installed when missing,
# otherwise (or when apt-get fails) those tests are skipped and say why
browser:
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || \
		{ echo "installing Debian's chromium for the browser tests"; \
		  { DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
		  echo "could not install chromium: the browser tests will be skipped, saying so"; }

test: $(VENV)/.installed-dev browser
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/rosenblatt warmup
	$(PY) -m pytest -n 2 -q

# The API reference, built from the numpydoc docstrings into build/docs (open index.html);
# -E rereads every docstring and -W fails on any warning (make test builds it once, in
# tests/test_docs.py, into a temporary folder)
docs: $(VENV)/.installed-dev
	$(VENV)/bin/sphinx-build -E -W --keep-going -q -b html docs/api build/docs

# ruff's fixes and formatting, applied (make test only checks)
format: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(VENV)/.installed
	$(PY) benchmarks/compare_sklearn.py

# numba's disk cache of the compiled loops and parsers (the package drops it by itself when
# one of the library's sources changes; see src/rosenblatt/engine/kernels/__init__.py)
clean-cache:
	find src benchmarks -name '*.nbi' -delete -o -name '*.nbc' -delete

clean: clean-cache
	rm -rf $(VENV) build src/*.egg-info .pytest_cache src/rosenblatt/engine/kernels/_built

# The long run of the model-file fuzzer (10,000 mutated files through load, load_predictor
# and `rosenblatt predict`; see benchmarks/fuzz_model_files.py --help); exits 1 on a failure
.PHONY: fuzz
fuzz: $(VENV)/.installed-dev
	$(PY) benchmarks/fuzz_model_files.py

# The long run of the checkpoint fuzzer (3,000 mutated checkpoints resumed through fit_stream,
# 60 of them through `rosenblatt train --resume`; see benchmarks/fuzz_checkpoints.py --help)
.PHONY: fuzz-checkpoints
fuzz-checkpoints: $(VENV)/.installed-dev
	$(PY) benchmarks/fuzz_checkpoints.py

# The long run of the streaming-input fuzzer (3,000 mutated CSV, svmlight and TSV files, each
# read whole, in chunks and as a stream, from the file and from standard input; see
# benchmarks/fuzz_streaming_input.py --help); exits 1 on a failure
.PHONY: fuzz-input
fuzz-input: $(VENV)/.installed-dev
	$(PY) benchmarks/fuzz_streaming_input.py
