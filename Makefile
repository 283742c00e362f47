# Two commands matter: `make up` and `make test`. Both install what is missing
# (uv into .tools/, the locked environment into .venv/) and need only python3 + pip.

PYTHON ?= python3
UV_VERSION := 0.13.8
UV := $(shell command -v uv 2>/dev/null || echo $(CURDIR)/.tools/uv/bin/uv)
RUN := $(UV) run --frozen
export DOSE_MEM_HOME ?= $(HOME)/.dose-mem
export PYTHONUNBUFFERED := 1

.PHONY: up down test lint bench eval soak clean env browser agents

$(CURDIR)/.tools/uv/bin/uv:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --target $(CURDIR)/.tools/uv uv==$(UV_VERSION)

.venv/.synced: uv.lock pyproject.toml | $(UV)
	$(UV) sync --frozen --quiet
	touch $@

env: .venv/.synced

up: env
	$(RUN) python -m dose_mem.up

down: env
	$(RUN) python -m dose_mem.up --stop

# The inspector's browser tests (tests/inspector) drive Debian's chromium through its
# chromedriver. Installed here when missing and we are root; otherwise a clear failure.
browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-noto-cjk; \
	  else \
	    echo "make test needs /usr/bin/chromium and /usr/bin/chromedriver for tests/inspector:" >&2; \
	    echo "  sudo apt-get install -y chromium chromium-driver fonts-noto-cjk" >&2; exit 1; \
	  fi; \
	fi

test: env browser agents
	$(RUN) ruff check .
	$(RUN) ruff format --check .
	$(RUN) pytest -n 2 --dist loadfile -p no:cacheprovider

agents: env  # the real agents the integration tests run, installed side by side
	$(RUN) python -m evaluation.agents

lint: env
	$(RUN) ruff check .
	$(RUN) ruff format --check .

bench: env  # BENCH_SIZES=1k,10k for a quick run (default 1k,10k,100k)
	$(RUN) python -m evaluation.bench

eval: env
	$(RUN) dose-mem eval run evaluation/envs/demo --judge gold --out reports/demo

soak: env
	DOSE_MEM_SOAK_KILLS=20 DOSE_MEM_FUZZ_EXAMPLES=1000 $(RUN) pytest -p no:cacheprovider tests/hardening

clean:
	rm -rf .venv .tools .pytest_cache
