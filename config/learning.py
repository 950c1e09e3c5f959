"""Settings for learning from reviewers (`contracts.learned`): `manage.py retrain` and `manage.py train_adapter`.

config/settings.py imports every name here (it is at its size limit); each reads the environment like the rest.
"""

from __future__ import annotations

from config.env import envbool, envfloat, envint, envstr

__all__ = [
    "DOCGATE_ADAPTER_BATCH_TOKENS",
    "DOCGATE_ADAPTER_JUDGE_MAX_PROMPTS",
    "DOCGATE_ADAPTER_JUDGE_MAX_TOKENS",
    "DOCGATE_ADAPTER_LEARNING_RATE",
    "DOCGATE_ADAPTER_LOAD_AT_RUNTIME",
    "DOCGATE_ADAPTER_LORA_ALPHA",
    "DOCGATE_ADAPTER_MAX_DOC_CHARS",
    "DOCGATE_ADAPTER_RANK",
    "DOCGATE_ADAPTER_SERVER_MODELS_DIR",
    "DOCGATE_ADAPTER_STEPS",
    "DOCGATE_ADAPTER_TARGET_MODULES",
    "DOCGATE_ADAPTER_TRAIN_BASE_MODEL",
    "DOCGATE_ADAPTER_TRAIN_PYTHON",
    "DOCGATE_ADAPTER_TRAIN_TIMEOUT_S",
    "DOCGATE_ADAPTER_UNKNOWN_TTL_S",
    "DOCGATE_RETRAIN_CLASS_MARGIN",
    "DOCGATE_RETRAIN_CLASS_MIN_SUPPORT",
    "DOCGATE_RETRAIN_SLICE_SHARE",
]

# `manage.py retrain`: the held-back share, the per-class F1 margin and the held-back documents a class needs
# before the margin judges it alone (README).
DOCGATE_RETRAIN_SLICE_SHARE = envfloat("DOCGATE_RETRAIN_SLICE_SHARE", 0.2)
DOCGATE_RETRAIN_CLASS_MARGIN = envfloat("DOCGATE_RETRAIN_CLASS_MARGIN", 0.05)
DOCGATE_RETRAIN_CLASS_MIN_SUPPORT = envint("DOCGATE_RETRAIN_CLASS_MIN_SUPPORT", 5)

# `manage.py train_adapter`: a LoRA adapter of the served model per organisation, trained by the python of the
# training virtualenv (`make train-deps`) on the base model's Hugging Face folder; the seed's rank 64 on Q/K/V/O.
DOCGATE_ADAPTER_TRAIN_PYTHON = envstr("DOCGATE_ADAPTER_TRAIN_PYTHON", ".venv-train/bin/python")
DOCGATE_ADAPTER_TRAIN_BASE_MODEL = envstr("DOCGATE_ADAPTER_TRAIN_BASE_MODEL", "var/vllm-model")
DOCGATE_ADAPTER_RANK = envint("DOCGATE_ADAPTER_RANK", 64)
DOCGATE_ADAPTER_LORA_ALPHA = envint("DOCGATE_ADAPTER_LORA_ALPHA", 128)
DOCGATE_ADAPTER_TARGET_MODULES = tuple(
    name.strip() for name in envstr("DOCGATE_ADAPTER_TARGET_MODULES", "q_proj,k_proj,v_proj,o_proj").split(",")
    if name.strip()
)  # fmt: skip
DOCGATE_ADAPTER_STEPS = envint("DOCGATE_ADAPTER_STEPS", 48)
DOCGATE_ADAPTER_LEARNING_RATE = envfloat("DOCGATE_ADAPTER_LEARNING_RATE", 2e-4)
# Tokens per optimizer step: pairs are grouped up to it, one sequence in memory at a time (gradients accumulated).
DOCGATE_ADAPTER_BATCH_TOKENS = envint("DOCGATE_ADAPTER_BATCH_TOKENS", 2048)
# A document is cut to this many characters in a pair (the prompt plus the answer must fit the window).
DOCGATE_ADAPTER_MAX_DOC_CHARS = envint("DOCGATE_ADAPTER_MAX_DOC_CHARS", 1200)
DOCGATE_ADAPTER_TRAIN_TIMEOUT_S = envint("DOCGATE_ADAPTER_TRAIN_TIMEOUT_S", 3600)
# The judge asks base and adapter at most this many held-back prompts each, with replies cut at this many tokens:
# on CPU it finishes in minutes (the slice statement says how many were asked).
DOCGATE_ADAPTER_JUDGE_MAX_PROMPTS = envint("DOCGATE_ADAPTER_JUDGE_MAX_PROMPTS", 12)
DOCGATE_ADAPTER_JUDGE_MAX_TOKENS = envint("DOCGATE_ADAPTER_JUDGE_MAX_TOKENS", 96)
# Where the model server sees DOCGATE_MODELS_DIR (a shared volume; empty: the same path), and whether DocGate
# loads a new adapter into vLLM through /v1/load_lora_adapter (VLLM_ALLOW_RUNTIME_LORA_UPDATING=True there).
DOCGATE_ADAPTER_SERVER_MODELS_DIR = envstr("DOCGATE_ADAPTER_SERVER_MODELS_DIR", "")
DOCGATE_ADAPTER_LOAD_AT_RUNTIME = envbool("DOCGATE_ADAPTER_LOAD_AT_RUNTIME", True)
# How long a worker asks the base model instead of an adapter the server answered it does not have.
DOCGATE_ADAPTER_UNKNOWN_TTL_S = envfloat("DOCGATE_ADAPTER_UNKNOWN_TTL_S", 300.0)
