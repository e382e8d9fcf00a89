"""The exercises in a terminal: each question and its worked answer as plain text."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from common.exercises import EXERCISES, Exercise, get_exercise
from common.present.plain_math import plain


def format_exercise(exercise: Exercise) -> str:
    """An exercise and its worked answer as plain text, for a terminal."""
    answer = exercise.solve()
    lines = ["Worked answer:", *([f"  {plain(answer.formula)}"] if answer.formula else [])]
    lines += [f"- {step}" for step in answer.steps]
    if answer.table is not None:
        lines += ["", str(answer.table)]
    return _shown(exercise, lines)


def _shown(exercise: Exercise, after: list[str]) -> str:
    """Title, rule, origin and question, then `after`, without the code marks."""
    lines = [exercise.title, "=" * len(exercise.title), f"(from {exercise.origin})", ""]
    return "\n".join(line.replace("``", "") for line in [*lines, exercise.question, "", *after])


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
            texts.append(_shown(exercise, [f"No worked answer with this table: {exc}."]))
            failed.append(f"{exercise.key}: {exc}")
    print("\n\n".join(texts))
    if failed and keys:  # an answer asked for by name and not given is an error
        print(f"common.exercises: error: {'; '.join(failed)}", file=sys.stderr)
        return 1
    return 0
