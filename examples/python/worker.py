"""A Temporal Python worker for the example workflows: `python worker.py` (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE)."""
import asyncio
import os
import signal
from typing import Any, Sequence

from temporalio.client import Client
from temporalio.worker import Worker

from activities import deploy, deprovision_step, provision_step, release_slot, reserve_slot, undeploy
from workflows import ApproveDeploymentWorkflow, GreetWorkflow, ProvisionWorkflow


async def run_worker(workflows: Sequence[type], activities: Sequence[Any], default_queue: str, label: str = "python worker",
                     **options: Any) -> None:
    """Runs a worker on TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE / TASK_QUEUE until SIGINT or SIGTERM."""
    address = os.environ.get("TEMPORAL_ADDRESS", "localhost:7233")
    task_queue = os.environ.get("TASK_QUEUE", default_queue)
    client = await Client.connect(address, namespace=os.environ.get("TEMPORAL_NAMESPACE", "default"))
    worker = Worker(client, task_queue=task_queue, workflows=list(workflows), activities=list(activities), **options)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with worker:
        print(f"{label} polling task queue {task_queue} on {address}", flush=True)
        await stop.wait()


if __name__ == "__main__":  # the workflow sandbox re-imports modules: start only when run
    asyncio.run(run_worker([GreetWorkflow, ApproveDeploymentWorkflow, ProvisionWorkflow],
                           [reserve_slot, release_slot, deploy, undeploy, provision_step, deprovision_step], "python-tools"))
