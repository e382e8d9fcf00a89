"""The course script's name for the console helpers: ``common.present.console``, re-exported."""

from common.present.console import *  # noqa: F403
