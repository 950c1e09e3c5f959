"""Train a LoRA adapter of the served model on instruction pairs; run by the training virtualenv's python.

    python -m inference.adapter_train --pairs PAIRS.jsonl --base MODEL_DIR --out ADAPTER_DIR [--rank 64 ...]

Each pair is {"messages": [{"role": "user", ...}, {"role": "assistant", ...}]}: the prompt is rendered with the
model's own chat template (Gemma: no system turn) and only the answer's tokens are learned (the prompt is masked).
QLoRA (4-bit base, bitsandbytes) where a GPU and bitsandbytes are present, plain LoRA on CPU. Prints one JSON line
of metrics (loss before and after over the pairs, per step, wall time, peak RSS) and writes it to
ADAPTER_DIR/training.json. torch, transformers and peft are imported only here, never by DocGate's processes.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

IGNORE = -100  # the label the loss skips
EVAL_PAIRS = 16  # loss before/after is measured over at most this many pairs


def label_mask(prompt_ids: Sequence[int], full_ids: Sequence[int]) -> list[int]:
    """Labels for `full_ids`: the prompt's tokens masked, the answer's kept; ValueError when the prompt is not a
    prefix of the whole (the template would have changed the prompt's tokens) or nothing is left to learn."""
    if list(full_ids[: len(prompt_ids)]) != list(prompt_ids):
        raise ValueError("the rendered prompt is not a prefix of the prompt plus its answer")
    if len(full_ids) <= len(prompt_ids):
        raise ValueError("the pair has no answer tokens")
    return [IGNORE] * len(prompt_ids) + list(full_ids[len(prompt_ids) :])


def token_batches(lengths: Sequence[int], batch_tokens: int) -> list[list[int]]:
    """Indexes grouped in order so that each group's padded size (count x longest) stays within `batch_tokens`
    (a longer pair goes alone)."""
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for index, length in enumerate(lengths):
        if current and max(longest, length) * (len(current) + 1) > batch_tokens:
            batches.append(current)
            current, longest = [], 0
        current.append(index)
        longest = max(longest, length)
    if current:
        batches.append(current)
    return batches


def pairs_read(path: Path) -> list[tuple[list[dict[str, str]], str]]:
    """(prompt turns, answer) of each pair; ValueError on a system turn or a pair that does not end in an answer."""
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        messages = json.loads(line)["messages"]
        roles = [turn["role"] for turn in messages]
        if "system" in roles or not roles or roles[-1] != "assistant" or roles[0] != "user":
            raise ValueError(f"pair {number}: user turns then one answer, no system turn (got {roles})")
        pairs.append((messages[:-1], str(messages[-1]["content"])))
    if not pairs:
        raise ValueError(f"{path}: no pairs")
    return pairs


def _encode(tokenizer: Any, prompt: list[dict[str, str]], answer: str, max_tokens: int) -> tuple[list[int], list[int]]:
    text = tokenizer.apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)
    prompt_ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    # Gemma ends a turn with <end_of_turn>: learning it teaches the adapter to stop.
    full_ids = tokenizer(text + answer + "<end_of_turn>\n", add_special_tokens=False)["input_ids"]
    labels = label_mask(prompt_ids, full_ids)
    return full_ids[-max_tokens:], labels[-max_tokens:]


def _model(base: str, *, rank: int, alpha: int, targets: list[str]) -> tuple[Any, str]:
    import torch  # heavy: only in the training virtualenv
    from peft import LoraConfig, get_peft_model  # heavy: only in the training virtualenv
    from transformers import AutoModelForCausalLM  # heavy: only in the training virtualenv

    lora = LoraConfig(r=rank, lora_alpha=alpha, target_modules=targets, lora_dropout=0.0, task_type="CAUSAL_LM")
    try:
        import bitsandbytes  # noqa: F401  (QLoRA only where it and a GPU are present)

        quantize = torch.cuda.is_available()
    except ImportError:
        quantize = False
    if quantize:
        from peft import prepare_model_for_kbit_training  # heavy: only in the training virtualenv
        from transformers import BitsAndBytesConfig  # heavy: only in the training virtualenv

        four_bit = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16
        )
        model = AutoModelForCausalLM.from_pretrained(
            base, quantization_config=four_bit, attn_implementation="eager", device_map={"": 0}
        )
        return get_peft_model(prepare_model_for_kbit_training(model), lora), "qlora"
    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32, attn_implementation="eager")
    return get_peft_model(model, lora), "lora"


def _pair_loss(model: Any, ids: list[int], labels: list[int]) -> Any:
    """The loss over one pair's answer tokens. The answer ends the sequence, so only its logits are computed
    (`logits_to_keep`): the vocabulary projection of the long prompt, most of the time and memory, is skipped."""
    import torch  # heavy: only in the training virtualenv

    answer = sum(label != IGNORE for label in labels)
    device = next(model.parameters()).device
    logits = model(input_ids=torch.tensor([ids], device=device), logits_to_keep=answer + 1).logits
    targets = torch.tensor(ids[-answer:], device=device)
    return torch.nn.functional.cross_entropy(logits[0, :-1].float(), targets)


def _mean_loss(model: Any, encoded: list[tuple[list[int], list[int]]]) -> float:
    import torch  # heavy: only in the training virtualenv

    with torch.no_grad():
        losses = [float(_pair_loss(model, ids, labels)) for ids, labels in encoded[:EVAL_PAIRS]]
    return round(sum(losses) / len(losses), 4)


def adapter_train(args: argparse.Namespace) -> dict[str, Any]:
    """Train, save the adapter in `args.out`, and return the metrics."""
    import torch  # heavy: only in the training virtualenv
    from transformers import AutoTokenizer  # heavy: only in the training virtualenv

    started = time.monotonic()
    torch.manual_seed(args.seed)
    tokenizer = AutoTokenizer.from_pretrained(args.base)
    encoded = [_encode(tokenizer, prompt, answer, args.max_tokens) for prompt, answer in pairs_read(args.pairs)]
    model, method = _model(args.base, rank=args.rank, alpha=args.alpha, targets=args.targets.split(","))
    before = _mean_loss(model, encoded)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.learning_rate)
    batches = token_batches([len(ids) for ids, _ in encoded], args.batch_tokens)
    model.train()
    step_losses = []
    for step in range(args.steps):
        batch = batches[step % len(batches)]
        total = 0.0
        for index in batch:  # one pair at a time, gradients accumulated: no padding, memory of one sequence
            loss = _pair_loss(model, *encoded[index]) / len(batch)
            loss.backward()
            total += float(loss.detach())
        optimizer.step()
        optimizer.zero_grad()
        step_losses.append(round(total, 4))
    model.eval()
    after = _mean_loss(model, encoded)
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(args.out))
    metrics = {
        "method": method,
        "pairs": len(encoded),
        "steps": args.steps,
        "rank": args.rank,
        "target_modules": args.targets.split(","),
        "loss_before": before,
        "loss_after": after,
        "step_losses": step_losses,
        "wall_s": round(time.monotonic() - started, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "torch_threads": torch.get_num_threads(),
    }
    (args.out / "training.json").write_text(json.dumps(metrics, indent=2), encoding="utf-8")
    return metrics


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pairs", type=Path, required=True)
    parser.add_argument("--base", required=True, help="the served model's Hugging Face folder")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rank", type=int, default=64)
    parser.add_argument("--alpha", type=int, default=128)
    parser.add_argument("--targets", default="q_proj,k_proj,v_proj,o_proj")
    parser.add_argument("--steps", type=int, default=48)
    parser.add_argument("--learning-rate", type=float, default=2e-4)
    parser.add_argument("--batch-tokens", type=int, default=2048)
    parser.add_argument("--max-tokens", type=int, default=2048, help="a longer pair keeps its last tokens")
    parser.add_argument("--seed", type=int, default=0)
    metrics = adapter_train(parser.parse_args(argv))
    print(json.dumps(metrics))
    return 0


if __name__ == "__main__":
    sys.exit(main())
