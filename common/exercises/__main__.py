"""``python3 -m common.exercises [KEY ...]``: print exercises with their worked answers."""

from __future__ import annotations

from common.exercises.text import main

raise SystemExit(main())
