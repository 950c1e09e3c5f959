# DocGate. `make run` serves it on embedded defaults; `make test` runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=
# llama-cpp-python compiles llama.cpp here. Its default native build (-march=native) can use CPU features that
# a machine advertises but a hypervisor does not enable (AMX: the server dies with SIGILL on its first request),
# so build for the x86-64-v3 baseline (AVX2/FMA/F16C) instead; the flags are ignored on other architectures.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

.PHONY: run test test-vllm lint bench install install-test clean browser-deps converters promtool kubectl charts \
	train-deps kernels

$(VENV)/.runtime: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	touch $@

$(VENV)/.test: $(VENV)/.runtime tests/requirements.txt
	$(PY) -m pip install -q -r tests/requirements.txt
	touch $@

# The portal's charts: Apache ECharts from npm, pinned by frontend/charts/package-lock.json (`npm ci`), copied into
# the static folder — never a CDN; the hotspots page says so when the file is missing. Node.js and npm come from
# Debian when missing and we are root.
ECHARTS := frontend/static/frontend/vendor/echarts.min.js
charts: $(ECHARTS)

$(ECHARTS): frontend/charts/package.json frontend/charts/package-lock.json
	@if ! command -v npm >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	      nodejs npm >/dev/null) || echo "charts: apt-get install nodejs npm failed" >&2; \
	  else echo "charts: npm missing and not root (apt-get install nodejs npm); the hotspot chart stays missing" >&2; fi; \
	fi
	cd frontend/charts && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	mkdir -p $(@D)
	cp frontend/charts/node_modules/echarts/dist/echarts.min.js $@

# The normalizer's compiled kernels (rules/normalize/kernels.c → rules/normalize/_kernels<ABI tag>.so, git-ignored):
# rebuilt whenever kernels.c is newer than the library, and a library built from another kernels.c is refused at
# import (the Python code runs, with a warning; /readyz says which runs). Without a C compiler the Python code runs.
kernels: $(VENV)/.runtime
	$(PY) rules/normalize/kernels_build.py

install: $(VENV)/.runtime kernels charts

install-test: $(VENV)/.test kernels charts

# Converters for scans, images and legacy Office files (OCRmyPDF + Tesseract chi_sim/chi_tra, LibreOffice
# headless) and bubblewrap, which confines them; installed from Debian when missing and we are root. Without them
# those inputs are refused with what to install, and /readyz lists them; everything else works.
CONVERTER_PACKAGES := ocrmypdf tesseract-ocr tesseract-ocr-chi-sim tesseract-ocr-chi-tra libreoffice-writer-nogui \
	bubblewrap
converters:
	@if ! command -v ocrmypdf >/dev/null 2>&1 || ! command -v soffice >/dev/null 2>&1 || ! command -v bwrap >/dev/null 2>&1 \
	    || ! tesseract --list-langs 2>/dev/null | grep -qx chi_tra; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	      $(CONVERTER_PACKAGES) >/dev/null) || echo "converters: apt-get failed; scans and .doc stay refused" >&2; \
	  else echo "converters: missing and not root; scans and .doc will be refused (apt-get install $(CONVERTER_PACKAGES))" >&2; fi; \
	fi

run: install converters
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput -v0
	$(PY) manage.py bootstrap_demo
	$(PY) manage.py runstack --bind $${DOCGATE_BIND:-127.0.0.1:8000}

# Browser tests drive Debian's chromium (with a CJK font for readable screenshots); installed here when missing
# and we are root — never a browser download. Without it they skip (fail with CI=true).
browser-deps:
	@if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi -e wqy -e cjk; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null) || echo "browser-deps: apt-get failed" >&2; \
	  else echo "browser-deps: chromium missing and not root; browser tests will skip" >&2; fi; \
	fi

# promtool (Debian `prometheus`) checks /metrics and deploy/prometheus/prometheus.yml the way Prometheus reads
# them; installed here when missing and we are root (on a systemd host the package also enables a local
# Prometheus service: `systemctl disable --now prometheus` if unwanted). Without it those tests skip (fail with
# CI=true).
promtool:
	@if ! command -v promtool >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	      prometheus >/dev/null) || echo "promtool: apt-get failed; the exposition and config checks will skip" >&2; \
	  else echo "promtool: missing and not root; the exposition and config checks will skip (apt-get install prometheus)" >&2; fi; \
	fi

# kubectl (Debian `kubernetes-client`) renders deploy/k8s with its built-in kustomize for the manifest test;
# installed here when missing and we are root. Without it that test skips (fails with CI=true).
kubectl:
	@if ! command -v kubectl >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	      kubernetes-client >/dev/null) || echo "kubectl: apt-get failed; the Kubernetes manifest test will skip" >&2; \
	  else echo "kubectl: missing and not root; the Kubernetes manifest test will skip (apt-get install kubernetes-client)" >&2; fi; \
	fi

test: install-test browser-deps converters promtool kubectl
	@eval "$$(bash tests/services.sh)" && \
	  DOCGATE_DATA_DIR=$(CURDIR)/var/test $(PY) -m pytest $(PYTEST_ARGS)

# vLLM conformance: real vLLM (community CPU build, test-only .venv-vllm) serving Gemma 3 270M; ~4.5 min fresh.
# The adapter test serves a LoRA adapter that setup.sh trains once (a marker, like the model's conversion): 12 steps,
# ~3 min on a quiet 2-core machine; the adapter tests then take ~8 min (one of them runs `train_adapter` whole).
# setup.sh builds the venv, the model folder and the adapter once per machine, in a cache keyed by their inputs
# (DOCGATE_VLLM_CACHE, default ~/.cache/docgate/vllm): another clone with the same inputs links to them (~7 min saved).
test-vllm: install-test
	PYTHON=$(PYTHON) bash tests/vllm/setup.sh
	DOCGATE_VLLM=1 LLM_ENGINE=vllm $(PY) -m pytest tests/inference/test_vllm_conformance.py \
	  tests/inference/test_vllm_adapter.py $(PYTEST_ARGS)

# `manage.py train_adapter` trains in its own virtualenv (torch CPU, transformers, peft): the main install does not
# grow. DOCGATE_ADAPTER_TRAIN_PYTHON names its python (default .venv-train/bin/python).
TRAIN_VENV ?= .venv-train
train-deps: $(TRAIN_VENV)/.ready

$(TRAIN_VENV)/.ready: requirements-train.txt
	$(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install -q --upgrade pip
	$(TRAIN_VENV)/bin/python -m pip install -q -r requirements-train.txt
	$(TRAIN_VENV)/bin/python -c 'import torch, transformers, peft; assert not torch.version.cuda or torch.cuda.is_available()'
	touch $@

lint: install-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy .
	$(VENV)/bin/lint-imports

bench: install-test
	@command -v wrk >/dev/null 2>&1 || { if [ "$$(id -u)" = 0 ]; then \
	  apt-get install -y -qq wrk >/dev/null 2>&1 || echo "bench: apt-get install wrk failed; the wrk intake run is skipped" >&2; \
	  else echo "bench: wrk missing and not root; the wrk intake run is skipped (apt-get install wrk)" >&2; fi; }
	@eval "$$(bash tests/services.sh)" && $(PY) -m tests.benchmarks.run

clean:
	rm -rf frontend/charts/node_modules $(ECHARTS) var/test .pytest_cache .mypy_cache .ruff_cache .import_linter_cache \
	  rules/normalize/_kernels*.so
