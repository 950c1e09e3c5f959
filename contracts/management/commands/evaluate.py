"""`manage.py evaluate TASK --data FILE.jsonl`: score DocGate on labelled data, print one JSON object."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from contracts.llm import llm_client
from contracts.management.commands.train_safety_model import text_lines
from contracts.management.llm_evaluation import llm_evaluate
from rules.clauses.heading_model import ClauseModel, heading_model_cv, train_clause_model
from rules.evaluation.clause_weak import evaluate_weak
from rules.evaluation.clauses import evaluate_clauses
from rules.evaluation.common import jsonl_rows
from rules.evaluation.dialect import evaluate_dialect
from rules.evaluation.safety import evaluate_safety
from rules.evaluation.script import evaluate_script
from rules.evaluation.tickets import evaluate_tickets

TASKS = ("tickets", "clauses", "dialect", "script", "safety")


class Command(BaseCommand):
    help = "Evaluate one task on a JSONL file (formats in the shared data README); prints one JSON object."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("task", choices=TASKS)
        parser.add_argument("--data", required=True, help="labelled JSONL file")
        parser.add_argument(
            "--llm",
            choices=("on", "off"),
            default="off",
            help="off (default): the deterministic layer alone; on: also score the configured LLM"
            " (its figures under llm_report)",
        )
        parser.add_argument("--json", action="store_true", help="print JSON (the only output format)")
        parser.add_argument(
            "--train",
            help="tickets: labelled JSONL to fit the classifier on first; safety: the "
            "training corpus for --cv, --leave-out and --extra-safe; clauses: unlabelled contracts (JSONL with "
            "text) to train the heading model on first",
        )
        parser.add_argument("--clause-model", help="clauses: a heading model directory (train_clause_model)")
        parser.add_argument(
            "--mask-headings",
            action="store_true",
            help="clauses: blank every article heading title before matching (offsets kept)",
        )
        parser.add_argument(
            "--weak-headings",
            action="store_true",
            help="clauses: --data holds unlabelled contracts; estimate recall and a precision bound per clause type "
            "with their article headings as weak labels (rules.evaluation.clause_weak)",
        )
        parser.add_argument(
            "--cv",
            type=int,
            help="tickets, safety: k-fold cross-validation on --data, the model refitted inside every fold; "
            "clauses: the heading model cross-validated over the --train contracts",
        )
        parser.add_argument(
            "--learning-curve",
            action="store_true",
            help="tickets --cv K: also train on 1/8, 1/4 and 1/2 of every training fold and report macro-F1 by size",
        )
        parser.add_argument("--leave-out", help="safety: train without this source of --data, score on it")
        parser.add_argument(
            "--extra-safe",
            nargs="*",
            default=[],
            help="safety: an organisation's own safe texts added to every model trained here",
        )
        parser.add_argument("--rules-only", action="store_true", help="safety: the lexicon alone, no model")
        parser.add_argument("--seed", type=int, default=0, help="safety, tickets: seed of the folds (and of training)")
        parser.add_argument("--limit", type=int, help="score only the first N rows")

    def handle(self, *args: Any, **options: Any) -> None:
        task: str = options["task"]
        path = Path(options["data"])
        if not path.is_file():
            raise CommandError(f"--data {path}: no such file")
        if options.get("train") and not Path(options["train"]).is_file():
            raise CommandError(f"--train {options['train']}: no such file")
        if (options.get("train") or options.get("cv")) and task not in ("tickets", "safety", "clauses"):
            raise CommandError("--train and --cv apply to the tickets, safety and clauses tasks only")
        if task != "clauses" and (
            options.get("clause_model") or options.get("mask_headings") or options.get("weak_headings")
        ):
            raise CommandError("--clause-model, --mask-headings and --weak-headings apply to the clauses task only")
        if options.get("learning_curve") and task != "tickets":
            raise CommandError("--learning-curve applies to the tickets task only")
        safety_only = ("leave_out", "extra_safe", "rules_only")
        if task != "safety" and any(options.get(name) for name in safety_only):
            raise CommandError("--leave-out, --extra-safe and --rules-only apply to the safety task only")
        try:
            rows = list(jsonl_rows(path))
        except (ValueError, UnicodeDecodeError) as exc:
            raise CommandError(str(exc)) from exc
        if options.get("limit"):
            rows = rows[: options["limit"]]
        if not rows:
            raise CommandError(f"{path} holds no rows")
        started = time.perf_counter()
        self.stderr.write(f"evaluating {task} on {len(rows)} rows from {path} …")
        report = self._evaluate(task, rows, options)
        if options["llm"] == "on":
            client = llm_client()
            self.stderr.write(f"asking {client.config.model} on {client.config.base_url} ({client.config.engine}) …")
            report["llm_report"] = llm_evaluate(task, rows, client)
        report.setdefault("task", task)
        report["llm"] = options["llm"]
        report["seconds"] = round(time.perf_counter() - started, 2)
        self.stdout.write(json.dumps(report, ensure_ascii=False))

    def _evaluate_clauses(self, rows: list[dict[str, Any]], options: dict[str, Any]) -> dict[str, Any]:
        if options.get("weak_headings"):
            return {"weak_headings": True, **evaluate_weak(row["text"] for row in rows)}
        if options.get("cv"):
            if not options.get("train"):
                raise CommandError("clauses --cv K cross-validates the heading model: give its corpus with --train")
            self.stderr.write(f"cross-validating the heading model over {options['cv']} folds of contracts …")
            texts = [row["text"] for row in jsonl_rows(options["train"])]
            return heading_model_cv(texts, folds=options["cv"], seed=options.get("seed") or 0)
        model = None
        if options.get("clause_model"):
            model = ClauseModel.load(options["clause_model"])
        elif options.get("train"):
            self.stderr.write("training the heading model on the unlabelled contracts (minutes) …")
            texts = [row["text"] for row in jsonl_rows(options["train"])]
            model = train_clause_model(texts, seed=options.get("seed") or 0)
        report = evaluate_clauses(rows, model=model, mask=options.get("mask_headings", False))
        if model is not None:
            report["heading_model"] = {"version": model.version, **model.metadata}
        return report

    def _evaluate(self, task: str, rows: list[dict[str, Any]], options: dict[str, Any]) -> dict[str, Any]:
        try:
            if task == "script":
                return dict(evaluate_script(rows))
            if task == "dialect":
                return dict(evaluate_dialect(rows))
            if task == "clauses":
                return self._evaluate_clauses(rows, options)
            if task == "tickets":
                train_rows = list(jsonl_rows(options["train"])) if options.get("train") else None
                return dict(
                    evaluate_tickets(
                        rows,
                        train_rows=train_rows,
                        cv=options.get("cv"),
                        seed=options.get("seed") or 0,
                        learning_curve=options.get("learning_curve", False),
                    )
                )
            return self._evaluate_safety(rows, options)
        except (KeyError, TypeError) as exc:
            raise CommandError(f"the data does not have the {task} format: {exc!r}") from exc
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        except ImportError as exc:
            raise CommandError(f"the {task} task is not available in this build: {exc}") from exc

    def _evaluate_safety(self, rows: list[dict[str, Any]], options: dict[str, Any]) -> dict[str, Any]:

        train_rows = list(jsonl_rows(options["train"])) if options.get("train") else None
        extra = [text for path in options["extra_safe"] for text in text_lines(path)]
        if train_rows is not None:
            self.stderr.write("training safety models for this evaluation (minutes per model) …")
        return dict(
            evaluate_safety(
                rows,
                use_model=not options["rules_only"],
                train_rows=train_rows,
                cv=options.get("cv"),
                leave_out=options.get("leave_out"),
                extra_safe=extra,
                seed=options["seed"],
            )
        )
