"""The contract's activity side (docs/contract.md, "Progress from activities"): an activity needs
only this module. mcp_tasks re-exports it."""
from __future__ import annotations

from typing import Any

from temporalio import activity

ACTIVITY_PROGRESS_KEY = "mcpProgress"  # first heartbeat detail {mcpProgress: {message, done?, total?}}


def report_progress(message: str, done: float | None = None, total: float | None = None) -> None:
    """From an activity: the task's statusMessage shows this while the activity runs.

    It is a heartbeat (so it also keeps the activity alive and lets a cancel reach it). Temporal
    keeps only the latest heartbeat's details: a bare activity.heartbeat() afterwards clears the
    progress, so heartbeat through this function. The SDK sends heartbeats at most every 80% of
    the activity's heartbeat_timeout: give long activities one of a few seconds."""
    progress: dict[str, Any] = {"message": message}
    if done is not None:
        progress["done"] = done
    if total is not None:
        progress["total"] = total
    activity.heartbeat({ACTIVITY_PROGRESS_KEY: progress})
