"""``python3 -m common.exercises [KEY ...]``: print exercises with their worked answers."""

from common.exercises.text import main

raise SystemExit(main())
