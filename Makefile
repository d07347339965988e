# One command to run, one to test; both install what they need first.
PYTHON ?= python3.11
# Where pip finds the CPU build of torch. Empty: wherever pip is configured to look (a local
# wheel, say); where that is PyPI, whose Linux build brings CUDA, give the first run
# TORCH_INDEX=https://download.pytorch.org/whl/cpu (make install, serve or test).
TORCH_INDEX ?=
VENV ?= .venv
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
# mkdocs-material's notice about its successor, printed on every build.
export NO_MKDOCS_2_WARNING := 1

.PHONY: install serve test test-fast lint bench-quality schemas docs system-packages

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first, pinned to the CPU build, so no resolver reaches for a CUDA one.
	$(BIN)/pip install --quiet torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

serve: install
	$(BIN)/strata serve $(ARGS)

# PostgreSQL, Chromium, Node.js, promtool and curl, which the tests run for real: installed
# with apt-get when missing, so as root on Debian; as another user it names them and stops.
system-packages:
	bash scripts/system-packages

# Lint, type checks, the docs site (a link or anchor that does not resolve fails it), then the
# whole suite: about 12 minutes on two cores, the installs aside. The whole suite also
# measures the branch coverage of service/domain ([tool.coverage] in pyproject.toml) and fails
# below COVERAGE_FLOOR percent: the unit and API tests alone cover 97.2%. Given ARGS, pytest
# gets them instead, unmeasured and with no floor (a part covers less):
# make test ARGS=tests/unit runs a part.
COVERAGE_FLOOR := 97
test: install system-packages
	$(BIN)/ruff check service schemas tests bench clients scripts
	$(BIN)/ruff format --check service schemas tests bench clients scripts
	$(BIN)/mypy
	$(BIN)/mkdocs build --strict --site-dir build/site
	$(BIN)/pytest $(or $(ARGS),--cov --cov-report=term:skip-covered --cov-fail-under=$(COVERAGE_FLOOR))

# The unit and contract tests without a server, the model or PostgreSQL: under a minute on two
# cores, for the loop of a change (make test runs them all, and the rest).
test-fast: install
	$(BIN)/pytest tests/unit tests/contracts -m "not slow and not postgres"

# The wire contract's JSON Schema files and the TypeScript client's types, both checked for drift.
schemas: install
	$(BIN)/python -m schemas.generate
	$(BIN)/python clients/typescript/generate.py

# The configuration reference, generated from the settings (a test fails while it is stale),
# then the docs site into build/site.
docs: install
	$(BIN)/python -m scripts.configuration_reference
	$(BIN)/mkdocs build --strict --site-dir build/site

bench-quality: install
	$(BIN)/python -m bench.quality $(ARGS)
