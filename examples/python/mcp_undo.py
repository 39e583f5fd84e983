"""Undos: what reverses a task's steps, and running them all (McpTask.compensate). mcp_tasks
re-exports Undo."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Sequence

from temporalio.common import RetryPolicy


@dataclass(frozen=True)
class Undo:
    """A compensating activity. Data, not a function, so the undo list can travel through
    continue-as-new. It may run for a step that never took effect (a cancel while the step is in
    flight): make it idempotent and a no-op then."""

    activity: str  # the activity's registered name
    args: Sequence[Any] = ()
    step: str = ""  # what the step did: named in the failure when this undo fails
    start_to_close_seconds: float = 60.0
    maximum_attempts: int = 3  # then the undo counts as failed: a compensation must end


async def run_undos(wf: Any, undos: Sequence[Undo], announce: Callable[[str], None]) -> list[tuple[str, BaseException]]:
    """Runs every undo in order, each attempted even when one fails, none interrupted by a cancel;
    answers the steps not undone with their errors. `announce` hears each step as it is undone."""
    failures: list[tuple[str, BaseException]] = []

    async def undo_all() -> None:
        for undo in undos:
            announce(undo.step or undo.activity)
            try:
                await wf.execute_activity(
                    undo.activity, args=list(undo.args),
                    start_to_close_timeout=timedelta(seconds=undo.start_to_close_seconds),
                    retry_policy=RetryPolicy(maximum_attempts=undo.maximum_attempts))
            except Exception as err:
                failures.append((undo.step or undo.activity, err))

    # A task of its own: the workflow's cancellation hits the waiting task, never the undos.
    # asyncio.wait rather than asyncio.shield, as the SDK itself does (no "exception in
    # shielded future" log). A cancel swallowed here is honoured by McpTask.run afterwards.
    undoing = asyncio.ensure_future(undo_all())
    while not undoing.done():
        try:
            await asyncio.wait([undoing])
        except asyncio.CancelledError:
            pass
    undoing.result()
    return failures
