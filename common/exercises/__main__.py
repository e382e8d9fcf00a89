"""``python3 -m common.exercises [KEY ...]``: print exercises with their worked answers.

Like a lecture (the package installs ``common.shell.boot``'s policies first): one-line
errors (status 1), a quiet Ctrl-C (status 130) and closed pipe, a wrong key (status 2).
"""

from __future__ import annotations

from common.exercises.text import main

raise SystemExit(main())
