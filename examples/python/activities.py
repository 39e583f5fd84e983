"""Activities of the example workflows: each appends one JSON line to the ledger file (LEDGER_FILE)."""
import asyncio
import json
import os

from temporalio import activity
from temporalio.exceptions import ApplicationError

from mcp_activity import report_progress


def _ledger() -> str:
    return os.environ.get("LEDGER_FILE", "ledger.jsonl")


def _record(event: str, task_id: str, **fields) -> None:
    with open(_ledger(), "a", encoding="utf-8") as f:
        f.write(json.dumps({"event": event, "taskId": task_id, **fields}) + "\n")


def _recorded(event: str, task_id: str, **fields) -> bool:
    if not os.path.exists(_ledger()):
        return False
    with open(_ledger(), encoding="utf-8") as f:
        entries = [json.loads(line) for line in f if line.strip()]
    return any(e["event"] == event and e["taskId"] == task_id and all(e.get(k) == v for k, v in fields.items()) for e in entries)


def _record_once(event: str, task_id: str, **fields) -> None:
    """Records the event unless it is there already: a retried attempt applies its effect once."""
    if not _recorded(event, task_id, **fields):
        _record(event, task_id, **fields)


def slot_name(task_id: str, service: str) -> str:
    # derived, not stored: the release (registered before the reservation runs) knows it in advance
    return f"slot-{service}-{task_id[-6:]}"


@activity.defn
async def reserve_slot(task_id: str, service: str) -> str:
    _record("reserve", task_id, service=service)
    return slot_name(task_id, service)


@activity.defn
async def release_slot(task_id: str, service: str) -> None:
    """The compensation of reserve_slot; idempotent, a no-op for a slot never reserved."""
    if _recorded("reserve", task_id, service=service) and not _recorded("release", task_id, service=service):
        _record("release", task_id, service=service, reservation=slot_name(task_id, service))


@activity.defn
async def deploy(task_id: str, service: str, version: str, watch_seconds: float = 0.0) -> None:
    """Deploys, then watches the rollout for `watch_seconds`, reporting progress (a heartbeat: a
    cancel reaches the activity through one and stops the watch; the deploy stays until undone)."""
    _record_once("deploy", task_id, service=service, version=version)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + watch_seconds
    while (left := deadline - loop.time()) > 0:
        report_progress(f"watching the rollout of {service} {version}")
        await asyncio.sleep(min(left, 0.2))


@activity.defn
async def undeploy(task_id: str, service: str, version: str) -> None:
    """The compensation of deploy; idempotent, a no-op for a version never deployed."""
    if _recorded("deploy", task_id, service=service, version=version) and not _recorded("undeploy", task_id, service=service, version=version):
        _record("undeploy", task_id, service=service, version=version)


@activity.defn
async def provision_step(task_id: str, step: int, seconds: float, fail: bool) -> None:
    """Works for `seconds`, reporting its progress (a heartbeat: a cancel reaches an activity only
    through one), then applies its effect once (a retry after a worker died does not apply it
    twice); cancelled before that, it applies nothing. The task's statusMessage reads e.g.
    "step 2: provisioning (40 of 100)" meanwhile."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    deadline = start + seconds
    while (left := deadline - loop.time()) > 0:
        report_progress(f"step {step}: provisioning", done=int((loop.time() - start) / seconds * 100), total=100)
        await asyncio.sleep(min(left, 0.2))
    if fail:
        raise ApplicationError(f"step {step} failed", non_retryable=True)
    _record_once("provision", task_id, step=step)


@activity.defn
async def deprovision_step(task_id: str, step: int, refuse: bool) -> None:
    """The undo of provision_step: a no-op (recorded as such) for a step that never took effect."""
    if refuse:
        _record("deprovision-refused", task_id, step=step)
        raise ApplicationError(f"step {step} is locked and cannot be deprovisioned", non_retryable=True)
    _record("deprovision", task_id, step=step, applied=_recorded("provision", task_id, step=step))
