"""The exercises in a terminal: each question and its worked answer as plain text."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from common.exercises import EXERCISES, Exercise, get_exercise
from common.present.console import format_table
from common.present.plain_math import plain


def format_exercise(exercise: Exercise) -> str:
    """An exercise and its worked answer as plain text, for a terminal."""
    answer = exercise.solve()
    lines = [exercise.title, "=" * len(exercise.title), f"(from {exercise.origin})", ""]
    lines += [exercise.question, "", "Worked answer:"]
    if answer.formula:
        lines.append(f"  {plain(answer.formula)}")
    lines += [f"- {step}" for step in answer.steps]
    if answer.table is not None:
        lines += ["", format_table(answer.table.headers, answer.table.rows)]
    return "\n".join(line.replace("``", "") for line in lines)


def unanswered(exercise: Exercise, reason: Exception) -> str:
    """An exercise the edited table cannot answer: its question and why, instead of a stop."""
    lines = [exercise.title, "=" * len(exercise.title), f"(from {exercise.origin})", ""]
    lines += [exercise.question, "", f"No worked answer with this table: {reason}."]
    return "\n".join(line.replace("``", "") for line in lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python3 -m common.exercises [KEY ...]``: print exercises with their answers."""
    keys = list(sys.argv[1:] if argv is None else argv)
    if keys in (["-h"], ["--help"]):
        print("usage: python3 -m common.exercises [KEY ...]")
        print("keys: " + ", ".join(e.key for e in EXERCISES))
        return 0
    try:
        chosen = [get_exercise(k) for k in keys] if keys else list(EXERCISES)
    except ValueError as exc:
        print(f"common.exercises: error: {exc}", file=sys.stderr)
        return 2
    texts, failed = [], []
    for exercise in chosen:  # one exercise the table cannot answer does not stop the others
        try:
            texts.append(format_exercise(exercise))
        except ValueError as exc:
            texts.append(unanswered(exercise, exc))
            failed.append(f"{exercise.key}: {exc}")
    print("\n\n".join(texts))
    if failed and keys:  # an answer asked for by name and not given is an error
        print(f"common.exercises: error: {'; '.join(failed)}", file=sys.stderr)
        return 1
    return 0
