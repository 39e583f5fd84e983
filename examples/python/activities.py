"""Activities of the example workflows: each appends one JSON line to the ledger file (LEDGER_FILE)."""
import json
import os

from temporalio import activity


def _record(event: str, task_id: str, **fields) -> None:
    path = os.environ.get("LEDGER_FILE", "ledger.jsonl")
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({"event": event, "taskId": task_id, **fields}) + "\n")


@activity.defn
async def reserve_slot(task_id: str, service: str) -> str:
    _record("reserve", task_id, service=service)
    return f"slot-{service}-{task_id[-6:]}"


@activity.defn
async def release_slot(task_id: str, reservation: str) -> None:
    _record("release", task_id, reservation=reservation)  # the compensation


@activity.defn
async def deploy(task_id: str, service: str, version: str) -> None:
    _record("deploy", task_id, service=service, version=version)
