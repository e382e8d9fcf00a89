"""The machine stamp: whose numbers a measured table shows, and how to measure your own."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from common.present.console import fmt_bytes
from common.present.display import Text, html_mode


def _stamp(desc: Mapping[str, Any], llc_bytes: float | None) -> str:
    """Whose numbers, and when: 'this machine: AMD EPYC, 2 cores, LLC 32.00 MiB, on 2026-12-01
    20:28 UTC' ('the machine that built this page' on the site)."""
    who = "the machine that built this page" if html_mode() else "this machine"
    llc = f"LLC {fmt_bytes(llc_bytes, binary=True)}" if llc_bytes else "LLC not reported"
    when = time.strftime("%Y-%m-%d %H:%M %Z")
    return f"{who}: {desc.get('cpu')}, {desc.get('cores')} cores, {llc}, on {when}"


def built_here(desc: Mapping[str, Any], llc_bytes: float | None, script: str) -> Text:
    """Whose numbers these are: the machine that ran this (on the site: that built the page),
    and how to measure your own."""
    return Text(
        f"\nMeasured on {_stamp(desc, llc_bytes)}. Every number below is that machine's, not "
        f"a rule about computers; to measure your own, run python3 lectures/{script} on it."
    )


def measured_on(desc: Mapping[str, Any], llc_bytes: float | None) -> Text:
    """The short form, under each measured table: '(measured on ...: CPU, cores, LLC, when)'."""
    return Text(f"(measured on {_stamp(desc, llc_bytes)})")
